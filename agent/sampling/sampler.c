/*
 * agent/sampling/sampler.c — the sampling postponed job. See sampler.h.
 *
 * Context: sample_job runs on the Ruby thread that holds the GVL, at a
 * safepoint, inside whatever Ruby code was running: it must not allocate
 * Ruby objects, raise, or block. It reads the monotonic clock (vDSO) at
 * its start and end; when a recording it serves is in cpu mode, the
 * thread's CPU clock as the ticker read it at the tick (tick_cpu.h), or
 * else itself (thread_cpu.h: a system call), once; looks up the thread's
 * record and copies the frame VALUEs into the sample buffer once for all
 * of them.
 */
#include "sampler.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../common/clock.h"
#include "../vm/gvl_holder.h"
#include "../base/log.h"
#include "../base/ruby_api.h"
#include "frame_capture.h"
#include "sample_buf.h"
#include "../vm/threads.h"
#include "../vm/tick_cpu.h"

static rb_postponed_job_handle_t job_handle = POSTPONED_JOB_HANDLE_INVALID;
/* CLOCK_MONOTONIC of the last tick, written by the ticker before it
 * triggers the job. */
static _Atomic int64_t last_tick_ns;
static rp_keep_capture_fn *keep_capture;
static rp_after_round_fn *after_round;
static void (*on_served)(void);
/* Job runs that served a tick: the worker reads it to tell whether
 * ticks are being served (worker.c, idleness). */
static _Atomic uint64_t rounds_served;

uint64_t rp_sampler_rounds_served(void)
{
    return atomic_load(&rounds_served);
}

void rp_sampler_set_keep_capture(rp_keep_capture_fn *fn)
{
    keep_capture = fn;
}

void rp_sampler_set_after_round(rp_after_round_fn *fn)
{
    after_round = fn;
}

void rp_sampler_set_on_served(void (*fn)(void))
{
    on_served = fn;
}

int64_t rp_monotonic_ns(void)
{
    return rp_clock_ns(CLOCK_MONOTONIC);
}

void rp_sampler_cpu_seen(rp_thread *t, int64_t cpu_ns, int64_t at_ns)
{
    if (at_ns >= t->cpu_seen_at_ns) {
        t->cpu_seen_ns = cpu_ns;
        t->cpu_seen_at_ns = at_ns;
    }
}

int64_t rp_clock_reading_for(rp_clock_reading *now, rp_thread *t, rp_rec_id id)
{
    if (rp_recording_get(id)->cfg.mode == RP_MODE_WALL)
        return now->wall_ns;
    if (!now->has_cpu) {
        now->cpu_ns = rp_thread_cpu_now(&t->cpu);
        now->has_cpu = true;
        rp_sampler_cpu_seen(t, now->cpu_ns, now->wall_ns);
    }
    return now->cpu_ns;
}

/* Counts a capture's outcome for every recording its charges are for. */
static void count_outcome(const rp_charge *charges, int n, rp_capture_result result)
{
    if (result != RP_CAPTURE_FULL && result != RP_CAPTURED_TRUNCATED)
        return;
    bool counted[RP_RECORDINGS] = {false};
    for (int i = 0; i < n; i++) {
        rp_rec_id id = (rp_rec_id)charges[i].recording;
        if (counted[id])
            continue;
        counted[id] = true;
        rp_sampler_stats *s = &rp_recording_get(id)->stats;
        if (result == RP_CAPTURE_FULL)
            s->dropped_samples++;
        else
            s->truncated_samples++;
    }
}

/* Whether `t` has room for its last stack (allocated at its first). */
static bool last_stack_room(rp_thread *t)
{
    if (!t->last_frames) {
        t->last_frames = malloc(RP_STACK_MAX * sizeof(*t->last_frames));
        t->last_lines = malloc(RP_STACK_MAX * sizeof(*t->last_lines));
        if (!t->last_frames || !t->last_lines) {
            free(t->last_frames);
            free(t->last_lines);
            t->last_frames = NULL;
            t->last_lines = NULL;
            return false;
        }
    }
    return true;
}

/* The stack just captured on thread `t`, kept for its end. */
static void keep_last_stack(rp_thread *t)
{
    const uint32_t *frames;
    const int *lines;
    uint32_t depth = rp_sample_buf_last_capture(&frames, &lines);
    if (!last_stack_room(t))
        return;
    memcpy(t->last_frames, frames, depth * sizeof(*frames));
    if (lines)
        memcpy(t->last_lines, lines, depth * sizeof(*lines));
    t->last_has_lines = lines != NULL;
    t->last_depth = depth;
}

void rp_sampler_record(rp_thread *t, const rp_charge *charges, int n)
{
    if (keep_capture && keep_capture(t, charges, n)) {
        t->last_depth = 0; /* where it is now is the request's to know */
        return; /* kept with the thread's request until it ends */
    }
    rp_capture_result result = rp_sample_buf_capture(t->thread_seq, t->label_set, charges, n);
    count_outcome(charges, n, result);
    if (result == RP_CAPTURED || result == RP_CAPTURED_TRUNCATED)
        keep_last_stack(t);
}

/* The time a recording's clock of `t` holds pending and not yet charged
 * (waits, CPU off the GVL and GC, each held back until it is worth a
 * capture), as charges into out[] (room for 4); returns how many. The
 * thread's end is the last chance to charge it. */
static int pending_charges(rp_thread *t, rp_rec_id id, rp_charge *out)
{
    rp_thread_clock *c = rp_sampler_clock(t, id);
    bool cpu = rp_recording_get(id)->cfg.mode == RP_MODE_CPU;
    const struct {
        int64_t *ns;
        rp_vm_state state;
    } pending[] = {
        {&c->pending_blocked_ns, cpu ? RP_VM_RUNNING : RP_VM_GVL_BLOCKED},
        {&c->pending_wait_ns, RP_VM_GVL_WAIT},
        {&c->pending_gc_mark_ns, RP_VM_GC_MARK},
        {&c->pending_gc_sweep_ns, RP_VM_GC_SWEEP},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof(pending) / sizeof(pending[0]); i++) {
        if (*pending[i].ns > 0)
            out[n++] = (rp_charge){pending[i].state, *pending[i].ns, (uint8_t)id};
        *pending[i].ns = 0;
    }
    return n;
}

void rp_sampler_charge_tail(void)
{
    rp_thread *t = rp_threads_find(rb_thread_current());
    if (!t || t->last_depth == 0)
        return; /* never sampled: nowhere to put its time */
    rp_clock_reading now = {.wall_ns = rp_monotonic_ns()};
    for (int i = 0; i < RP_RECORDINGS; i++) {
        if (!atomic_load_explicit(&rp_recording_get((rp_rec_id)i)->accepting, memory_order_relaxed))
            continue;
        rp_charge charges[5];
        int n = rp_sampler_charge(t, (rp_rec_id)i, &now, charges);
        n += pending_charges(t, (rp_rec_id)i, charges + n);
        for (int k = 0; k < n; k++)
            count_outcome(&charges[k], 1,
                          rp_sample_buf_append(t->thread_seq, t->label_set, t->last_frames,
                                               t->last_has_lines ? t->last_lines : NULL, t->last_depth, &charges[k],
                                               now.wall_ns));
    }
    t->last_depth = 0; /* charged: its names need not be held */
}

static void renumber_last_stack(rp_thread *t, void *arg)
{
    rp_frame_name_fn **fn = arg;
    for (uint32_t d = 0; d < t->last_depth; d++)
        t->last_frames[d] = (*fn)(t->last_frames[d]);
}

void rp_sampler_renumber_frame_names(rp_frame_name_fn *fn)
{
    rp_threads_each(renumber_last_stack, &fn);
}

/* The most of one capture's time a cpu-mode clock skips. The capture
 * runs on the CPU for a few µs; its wall time, which is what is measured
 * (a second CPU clock read, a system call, would cost as much as it
 * saves), can be far longer when the OS preempted the thread, and that
 * part was not the thread's CPU time. */
#define OWN_CPU_MAX_NS 20000

void rp_sampler_own_time(rp_thread *t, const bool served[RP_RECORDINGS], const rp_clock_reading *since)
{
    int64_t spent = rp_monotonic_ns() - since->wall_ns;
    if (spent <= 0)
        return;
    for (int i = 0; i < RP_RECORDINGS; i++) {
        rp_recording *r = rp_recording_get((rp_rec_id)i);
        if (!atomic_load_explicit(&r->accepting, memory_order_relaxed))
            continue;
        if (served[i])
            r->stats.sampling_time_ns += (uint64_t)spent;
        rp_thread_clock *c = &t->clock[i];
        if (c->epoch != r->clock_epoch)
            continue;
        /* prev_wall_ns moves as far: the rest of a long capture's wall
         * time stays in what could have used the CPU (gvl_gc.c) */
        int64_t skip = r->cfg.mode == RP_MODE_WALL ? spent : spent < OWN_CPU_MAX_NS ? spent : OWN_CPU_MAX_NS;
        c->prev_ns += skip;
        c->prev_wall_ns += skip;
    }
}

/* Every accepting recording loses a sample the thread has no record for. */
static void drop_for_all(void)
{
    for (int i = 0; i < RP_RECORDINGS; i++)
        if (atomic_load(&rp_recording_get((rp_rec_id)i)->accepting))
            rp_recording_get((rp_rec_id)i)->stats.dropped_samples++;
}

rp_thread *rp_sampler_current_thread(void)
{
    bool is_new;
    rp_thread *t = rp_threads_current(&is_new);
    if (!t) {
        drop_for_all();
        return NULL;
    }
    if (is_new)
        t->seen_epoch = rp_recordings_epoch();
    /* Clocks start where the thread is first seen in their epoch — its
     * first GVL acquisition, as a rule — not at its first charge: a
     * thread that begins with a long C call holding the GVL is charged
     * for it when it returns. */
    for (int i = 0; i < RP_RECORDINGS; i++)
        if (atomic_load_explicit(&rp_recording_get((rp_rec_id)i)->accepting, memory_order_relaxed))
            rp_sampler_clock(t, (rp_rec_id)i);
    return t;
}

/* The clock starts now, or at 0, with nothing pending from before. */
static void start_clock(rp_thread *t, rp_thread_clock *c, const rp_recording *r, bool from_zero)
{
    c->prev_wall_ns = rp_monotonic_ns();
    c->prev_ns = from_zero ? 0 : r->cfg.mode == RP_MODE_WALL ? c->prev_wall_ns : rp_thread_cpu_now(&t->cpu);
    c->pending_blocked_ns = c->pending_wait_ns = 0;
    c->pending_gc_mark_ns = c->pending_gc_sweep_ns = 0;
    c->epoch = r->clock_epoch;
}

rp_thread_clock *rp_sampler_clock(rp_thread *t, rp_rec_id id)
{
    const rp_recording *r = rp_recording_get(id);
    rp_thread_clock *c = &t->clock[id];
    if (c->epoch != r->clock_epoch)
        /* The whole-process profile covers every thread's life: a thread
         * first seen since it began, with no pause since, has used CPU
         * only for it. A session does not know what a thread did before. */
        start_clock(t, c, r, id == RP_REC_WHOLE && r->cfg.mode == RP_MODE_CPU &&
                              r->clock_epoch == r->open_epoch && t->seen_epoch >= r->open_epoch);
    return c;
}

void rp_sampler_start_clock(rp_rec_id id)
{
    bool is_new;
    rp_thread *t = rp_threads_current(&is_new);
    if (!t)
        return;
    if (is_new)
        t->seen_epoch = rp_recordings_epoch();
    start_clock(t, &t->clock[id], rp_recording_get(id), false);
}

int rp_sampler_charge(rp_thread *t, rp_rec_id id, rp_clock_reading *now, rp_charge *charges)
{
    rp_thread_clock *c = rp_sampler_clock(t, id);
    int64_t clock = rp_clock_reading_for(now, t, id);
    int64_t weight = clock - c->prev_ns;
    c->prev_ns = clock;
    c->prev_wall_ns = now->wall_ns;
    if (weight <= 0)
        return 0;
    charges[0] = (rp_charge){RP_VM_RUNNING, weight, (uint8_t)id};
    return 1;
}

void rp_sampler_charge_current(rp_rec_id id)
{
    if (!atomic_load(&rp_recording_get(id)->accepting))
        return;
    rp_thread *t = rp_sampler_current_thread();
    if (!t)
        return;
    rp_clock_reading now = {.wall_ns = rp_monotonic_ns()};
    rp_charge charge;
    if (rp_sampler_charge(t, id, &now, &charge)) {
        rp_sampler_record(t, &charge, 1);
        bool served[RP_RECORDINGS] = {false};
        served[id] = true;
        rp_sampler_own_time(t, served, &now);
    }
}

/* The job's CPU reading from the tick that started it, when the ticker
 * read this thread's clock (tick_cpu.h); this thread holds the GVL now,
 * which the next tick reads. */
static void cpu_from_tick(rp_clock_reading *now, rp_thread *t)
{
    if (!rp_recordings_any_cpu_accepting())
        return;
    now->has_cpu = now->cpu_from_tick = rp_tick_cpu_take(&t->cpu, t->thread_seq, &now->cpu_ns, &now->tick_wall_ns);
    if (now->cpu_from_tick)
        rp_sampler_cpu_seen(t, now->cpu_ns, now->tick_wall_ns);
    rp_tick_cpu_holder(&t->cpu, t->thread_seq);
}

/* A reading from the tick is older than the job: a recording whose clock
 * of the thread moved past it since (started, or its previous sample's
 * own time skipped) reads the clock itself. */
static void cpu_after_clock(rp_clock_reading *now, rp_thread *t, rp_rec_id id)
{
    const rp_thread_clock *c = rp_sampler_clock(t, id);
    if (now->cpu_from_tick && rp_recording_get(id)->cfg.mode == RP_MODE_CPU && now->cpu_ns < c->prev_ns)
        now->has_cpu = now->cpu_from_tick = false;
}

/* A job this late after its tick (or a quarter of a period, when that is
 * shorter) reads the thread's CPU clock again. Ruby code reaches a
 * safepoint within microseconds. */
#define LATE_JOB_NS 20000

/* In cpu mode, with the tick's reading of the thread's clock: whether the
 * thread was running when the tick came. A job that runs late after its
 * tick (LATE_JOB_NS) reads the clock again: a thread that used
 * the CPU for most of that time was running (a long call holding the GVL,
 * whose time the reading now includes); one that did not was off the CPU
 * — the OS had taken it off, at a point of its choosing — and its stack
 * now is where it resumes, not where its time went. Its time is carried to
 * the next tick that finds it running. Without this, on a loaded machine
 * the samples taken at resumption carried the time before: a loop that
 * reads its CPU clock (a point where a kernel with EEVDF ends a slice)
 * showed 10% of its time in Process.clock_gettime, 1% on a quiet one. A
 * quarter of a period was the bound before; a server's threads, taken off
 * the CPU for less than that in their system calls, then had their work
 * charged to BasicSocket#setsockopt and the like: Puma's four threads
 * under load put Burst#work (tests/e2e/puma_bursts.sh) 9% short. */
static bool ran_through_tick(rp_thread *t, rp_clock_reading *now, int64_t period_ns)
{
    int64_t late = now->wall_ns - now->tick_wall_ns;
    if (!now->cpu_from_tick || late < (period_ns / 4 < LATE_JOB_NS ? period_ns / 4 : LATE_JOB_NS))
        return true;
    int64_t cpu = rp_thread_cpu_now(&t->cpu);
    rp_sampler_cpu_seen(t, cpu, now->wall_ns);
    bool ran = cpu - now->cpu_ns >= late / 2;
    now->cpu_ns = cpu; /* fresher, for every recording of this job */
    now->cpu_from_tick = false;
    return ran;
}

/* In cpu mode, whether the thread has used the CPU for most of a period
 * since its last sample: ticks come by the wall clock, and a thread that
 * had only part of a core since (a loaded machine, a thread sharing the
 * GVL) waits for the next, its CPU time carried to it, so that samples
 * come one per period of the thread's CPU time, as a CPU-time timer's do
 * (the gem's). Wall mode samples at every tick. `held_long`: the thread
 * has held the GVL without a safepoint since a tick several periods ago
 * (a long C call): it ran through the ticks, whatever the OS did between
 * the last one and the job (a parse of 1.5 s was once carried, whole, to
 * the next sample). */
static bool cpu_period_passed(rp_thread *t, rp_rec_id id, rp_clock_reading *now, bool held_long)
{
    const rp_recording *r = rp_recording_get(id);
    if (r->cfg.mode != RP_MODE_CPU)
        return true;
    if (!ran_through_tick(t, now, r->period_ns) && !held_long)
        return false;
    const rp_thread_clock *c = rp_sampler_clock(t, id);
    return rp_clock_reading_for(now, t, id) - c->prev_ns >= r->period_ns - r->period_ns / 4;
}

/* Periods since the first tick the job serves past which a thread that
 * held the GVL all along ran through them (cpu_period_passed). */
#define LONG_RUN_PERIODS 4

/* Whether the last tick came while this thread held the GVL. Ruby
 * interrupts the thread that last ran when no thread holds the GVL at a
 * tick (every one waiting: a sleep, a socket, a queue), and that thread
 * serves the tick once it has the GVL back, on the stack of its wait.
 * Such a tick found nothing running: its time stays pending for the next
 * tick that finds the thread running, on whatever it runs then. Before,
 * a thread working in bursts shorter than a tick between waits — a
 * server's thread pool — had its work charged to its waits. */
static bool tick_found_running(const rp_thread *t)
{
    return t->resumed_ns <= atomic_load_explicit(&last_tick_ns, memory_order_acquire) ||
           !t->sampled; /* its first sample, wherever: else a thread that
                         * no tick found running would end with no stack
                         * to take its time (four threads sharing the GVL
                         * at 10 Hz lost one of them whole) */
}

/* A thread no sample has left a stack for yet keeps the one it is on,
 * charged nothing: when it ends, its time has somewhere to go
 * (rp_sampler_charge_tail) even if no tick found it running — a thread
 * of 250 ms at 10 Hz whose two ticks came while the OS had it off the
 * CPU lost all its time before. */
static void remember_stack(rp_thread *t)
{
    if (t->sampled || t->last_depth > 0 || !last_stack_room(t))
        return;
    int depth = rp_frame_capture(0, RP_STACK_MAX, t->last_frames, NULL);
    t->last_depth = depth > 0 ? (uint32_t)depth : 0;
    t->last_has_lines = false;
}

/* Records the job's charges, leaving out the frames a C method's
 * callback pushed since the tick (frame_capture.h). */
static void record_tick(rp_thread *t, const rp_charge *charges, int n, int pushed)
{
    rp_frame_capture_since_tick(pushed);
    rp_sampler_record(t, charges, n);
    rp_frame_capture_since_tick(0);
}

/* Postponed job — Ruby thread with the GVL, at a safepoint. Serves every
 * recording with a tick of its own pending. A run with no tick behind it
 * (triggered in the parent before fork(), which Ruby carries over) serves
 * none. */
static void sample_job(void *unused)
{
    (void)unused;
    /* The job's own cost is measured on the vDSO monotonic clock (in cpu
     * mode the thread CPU clock is a system call, and one per sample is
     * enough), counted as sampling time and kept out of the program's. */
    rp_clock_reading now = {.wall_ns = rp_monotonic_ns()};
    rp_tick_position first; /* read by every run: the next tick notes anew */
    bool found_me = rp_gvl_holder_tick_found_me(&first);
    rp_thread *t = NULL;
    bool running = true;
    rp_charge charges[RP_CHARGES_MAX];
    bool took[RP_RECORDINGS] = {false};
    int n = 0;
    for (int i = 0; i < RP_RECORDINGS; i++) {
        rp_recording *r = rp_recording_get((rp_rec_id)i);
        uint64_t due = atomic_load_explicit(&r->trigger_count, memory_order_relaxed);
        if (!atomic_load_explicit(&r->accepting, memory_order_relaxed) || r->stats.ticks_served >= due)
            continue;
        r->stats.ticks_served = due;
        if (!t) {
            if (!(t = rp_sampler_current_thread()))
                return;
            cpu_from_tick(&now, t);
            running = tick_found_running(t);
        }
        if (!running)
            continue;
        cpu_after_clock(&now, t, (rp_rec_id)i);
        bool held_long = found_me && t->resumed_ns <= first.tick_ns &&
                         now.wall_ns - first.tick_ns >= LONG_RUN_PERIODS * r->period_ns;
        if (!cpu_period_passed(t, (rp_rec_id)i, &now, held_long))
            continue;
        n += rp_sampler_charge(t, (rp_rec_id)i, &now, charges + n);
        r->stats.sampling_count++;
        took[i] = true;
    }
    if (n > 0) {
        record_tick(t, charges, n, first.pushed);
        t->sampled = true;
    } else if (t) {
        remember_stack(t);
    }
    if (after_round)
        after_round(now.wall_ns);
    if (t) {
        rp_sampler_own_time(t, took, &now);
        /* counted before it looks whether ticks were paused (worker.c) */
        atomic_fetch_add(&rounds_served, 1);
        if (on_served)
            on_served();
    }
}

int rp_sampler_init(void)
{
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

/* Ticker thread (timer.h): async-signal-safe. Ruby interrupts
 * the thread it believes is running, which can be a thread still waiting
 * for the GVL (see gvl_holder.h); the holder is interrupted too. */
void rp_sampler_trigger(void)
{
    int64_t now = rp_monotonic_ns();
    if (rp_recordings_any_cpu_accepting())
        rp_tick_cpu_read(now); /* before the tick is counted: its job finds this reading */
    if (!rp_recordings_tick(now))
        return;
    atomic_store_explicit(&last_tick_ns, now, memory_order_release);
    rb_postponed_job_trigger(job_handle);
    rp_gvl_holder_tick(now);
}

void rp_sampler_after_fork(void)
{
    rp_recordings_after_fork();
    rp_tick_cpu_forget();
}
