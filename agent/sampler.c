/*
 * agent/sampler.c — the sampling postponed job. See sampler.h.
 *
 * Context: sample_job runs on the Ruby thread that holds the GVL, at a
 * safepoint, inside whatever Ruby code was running: it must not allocate
 * Ruby objects, raise, or block. It reads the monotonic clock (vDSO) at
 * its start and end, and in cpu mode the thread CPU clock (a system call)
 * once; looks up the thread's record and copies the frame VALUEs into the
 * sample buffer.
 */
#include "sampler.h"

#include <stdatomic.h>
#include <time.h>

#include "../common/clock.h"
#include "gvl_holder.h"
#include "log.h"
#include "ruby_api.h"
#include "sample_buf.h"
#include "threads.h"

static rb_postponed_job_handle_t job_handle = POSTPONED_JOB_HANDLE_INVALID;
static clockid_t sample_clock = CLOCK_THREAD_CPUTIME_ID;
static rp_mode sample_mode;
static int64_t min_charge_ns;
static atomic_bool accepting;
/* Clock epochs (GVL held): a thread's clocks are valid only in the epoch
 * they were started in. A profile begins one; each resume after a pause
 * begins another. */
static uint32_t clock_epoch, profile_epoch;
static atomic_uint_fast64_t trigger_count;
/* Written only by the GVL holder. */
static rp_sampler_stats stats;

int64_t rp_monotonic_ns(void)
{
    return rp_clock_ns(CLOCK_MONOTONIC);
}

int64_t rp_sampler_clock_ns(void)
{
    return rp_clock_ns(sample_clock);
}

void rp_sampler_record(const rp_thread *t, const rp_charge *charges, int n)
{
    switch (rp_sample_buf_capture(t->thread_seq, t->label_set, charges, n)) {
    case RP_CAPTURE_FULL:
        stats.dropped_samples++;
        break;
    case RP_CAPTURED_TRUNCATED:
        stats.truncated_samples++;
        break;
    default:
        break;
    }
}

bool rp_sampler_is_accepting(void)
{
    return atomic_load_explicit(&accepting, memory_order_relaxed);
}

/* GVL held: the thread's clocks start now (or at 0, see below), with
 * nothing pending from before. */
static void start_clocks(rp_thread *t, bool from_zero)
{
    t->prev_wall_ns = rp_monotonic_ns();
    t->prev_ns = from_zero ? 0 : sample_clock == CLOCK_MONOTONIC ? t->prev_wall_ns
                                                                 : rp_sampler_clock_ns();
    t->suspended_ns = t->ready_ns = 0;
    t->pending_blocked_ns = t->pending_wait_ns = 0;
    t->pending_gc_mark_ns = t->pending_gc_sweep_ns = 0;
    t->clock_epoch = clock_epoch;
}

rp_thread *rp_sampler_current_thread(void)
{
    bool is_new;
    rp_thread *t = rp_threads_current(&is_new);
    if (!t) {
        stats.dropped_samples++;
        return NULL;
    }
    if (is_new || t->clock_epoch != clock_epoch)
        /* A thread born since the profile began, with no pause since, has
         * used CPU only for this profile. */
        start_clocks(t, is_new && sample_mode == RP_MODE_CPU && clock_epoch == profile_epoch);
    return t;
}

void rp_sampler_charge(rp_thread *t, int64_t now, int64_t wall_now)
{
    rp_charge running = {RP_VM_RUNNING, now - t->prev_ns};
    t->prev_ns = now;
    t->prev_wall_ns = wall_now;
    if (running.weight > 0)
        rp_sampler_record(t, &running, 1);
}

void rp_sampler_charge_current(void)
{
    rp_thread *t = rp_sampler_current_thread();
    if (!t)
        return;
    int64_t wall_now = rp_monotonic_ns();
    rp_sampler_charge(t, sample_clock == CLOCK_MONOTONIC ? wall_now : rp_sampler_clock_ns(),
                      wall_now);
}

int64_t rp_sampler_min_charge_ns(void)
{
    return min_charge_ns;
}

/* Postponed job — Ruby thread with the GVL, at a safepoint. */
static void sample_job(void *unused)
{
    (void)unused;
    if (!rp_sampler_is_accepting())
        return;
    /* A run with no tick of this profile behind it was triggered in the
     * parent before fork() (Ruby carries triggered jobs over): not ours. */
    if (stats.sampling_count >= atomic_load_explicit(&trigger_count, memory_order_relaxed))
        return;
    /* The job's own cost is measured on the vDSO monotonic clock: in cpu
     * mode the thread CPU clock is a system call, and one per sample is
     * enough. */
    int64_t job_start = rp_monotonic_ns();
    rp_thread *t = rp_sampler_current_thread();
    if (!t)
        return;
    int64_t now = sample_clock == CLOCK_MONOTONIC ? job_start : rp_sampler_clock_ns();
    rp_sampler_charge(t, now, job_start);
    stats.sampling_count++;
    stats.sampling_time_ns += (uint64_t)(rp_monotonic_ns() - job_start);
}

int rp_sampler_init(rp_mode mode, int frequency)
{
    sample_mode = mode;
    min_charge_ns = 500000000 / frequency;
    sample_clock = mode == RP_MODE_CPU ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
    if (job_handle != POSTPONED_JOB_HANDLE_INVALID)
        return 0;
    job_handle = rb_postponed_job_preregister(0, sample_job, NULL);
    if (job_handle == POSTPONED_JOB_HANDLE_INVALID) {
        rp_log("cannot profile: Ruby refused to register the sampling job");
        return -1;
    }
    rp_gvl_holder_init(job_handle);
    return 0;
}

/* GVL held: a new clock epoch; the calling thread's clock starts now. */
static void begin_clock_epoch(void)
{
    clock_epoch++;
    bool is_new;
    rp_thread *t = rp_threads_current(&is_new);
    if (t)
        start_clocks(t, false);
}

void rp_sampler_start(void)
{
    begin_clock_epoch();
    profile_epoch = clock_epoch;
    atomic_store(&accepting, true);
}

void rp_sampler_stop(void)
{
    atomic_store(&accepting, false);
}

void rp_sampler_resume(void)
{
    begin_clock_epoch();
    atomic_store(&accepting, true);
}

/* Signal handler or worker thread: async-signal-safe. Ruby interrupts
 * the thread it believes is running, which can be a thread still waiting
 * for the GVL (see gvl_holder.h); the holder is interrupted too. */
void rp_sampler_trigger(void)
{
    /* A tick already on its way when sampling paused is not one. */
    if (!rp_sampler_is_accepting())
        return;
    atomic_fetch_add_explicit(&trigger_count, 1, memory_order_relaxed);
    rb_postponed_job_trigger(job_handle);
    rp_gvl_holder_interrupt();
}

rp_sampler_stats rp_sampler_stats_get(void)
{
    rp_sampler_stats s = stats;
    s.trigger_count = atomic_load(&trigger_count);
    return s;
}

void rp_sampler_stats_reset(void)
{
    stats = (rp_sampler_stats){0};
    atomic_store(&trigger_count, 0);
}
