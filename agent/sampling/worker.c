/*
 * agent/sampling/worker.c — the worker thread. See worker.h.
 *
 * Context: worker_main runs on its own pthread, never holds the GVL and
 * never calls Ruby except rb_postponed_job_trigger (async-signal-safe).
 * rp_worker_start/stop run on a Ruby thread holding the GVL.
 */
#include "worker.h"

#include <dlfcn.h>
#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "../../common/clock.h"
#include "aggregator.h"
#include "../base/agent_thread.h"
#include "../base/recording.h"
#include "../base/log.h"
#include "sample_buf.h"
#include "sampler.h"
#include "timer.h"
#include "../vm/gvl_holder.h"

static rp_agent_thread worker;
static sem_t wake;          /* posted at hand-overs and at stop */
static atomic_bool stopping;
/* The rotation, set by a Ruby thread (rp_worker_set_rotation) while the
 * worker runs, read by the worker as one pair under a sequence count
 * (odd while it is being written): an interval never meets another
 * setting's function, and a change restarts the worker's clock. */
static _Atomic uint32_t rotation_seq;
static _Atomic int64_t rotation_interval_ns; /* RPERF_INTERVAL, 0: none */
static void (*_Atomic rotation_due)(void);

/* Worker's own: the rotation in force, and when it is next due. */
typedef struct rotation {
    uint32_t seq;
    int64_t interval_ns;
    void (*due)(void);
    int64_t next_ns; /* CLOCK_MONOTONIC */
} rotation;
static rotation current;

/* Worker: the rotation as set now; a new setting counts from now. */
static const rotation *rotation_now(void)
{
    for (;;) {
        uint32_t seq = atomic_load_explicit(&rotation_seq, memory_order_acquire);
        if (seq == current.seq)
            return &current;
        if (seq & 1)
            continue;
        int64_t interval = atomic_load_explicit(&rotation_interval_ns, memory_order_relaxed);
        void (*due)(void) = atomic_load_explicit(&rotation_due, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&rotation_seq, memory_order_relaxed) != seq)
            continue;
        current = (rotation){seq, interval, due, rp_monotonic_ns() + interval};
        return &current;
    }
}
/* One job slot from the GVL side to the worker: `posted_job` is set
 * (release) by the GVL side when empty, cleared by the worker after
 * running it. */
static _Atomic(void (*)(void *)) posted_job;
static void *posted_arg;
static int gem_signal;              /* the rperf gem's timer signal (rp_worker_watch_gem) */
static void (*gem_started)(void);   /* set once at start */

/* Called on the GVL side at a hand-over; sem_post is async-signal-safe. */
static void wake_worker(void)
{
    sem_post(&wake);
}

static void fold_handed_over(void)
{
    rp_sample_buf *buf = rp_sample_buf_take_full();
    if (buf) {
        rp_aggregator_fold(buf);
        rp_sample_buf_return();
    }
}

/* Waits on `wake` until posted, or with intervals until the next one
 * is due, and at most `cap_ns` (0: no cap). */
static void wait_or_rotation(int64_t cap_ns)
{
    const rotation *r = rotation_now();
    int64_t until = r->interval_ns && r->due ? r->next_ns : 0;
    if (cap_ns) {
        int64_t capped = rp_monotonic_ns() + cap_ns;
        until = until && until < capped ? until : capped;
    }
    if (!until) {
        sem_wait(&wake);
        return;
    }
    struct timespec due = {until / 1000000000, until % 1000000000};
    sem_clockwait(&wake, CLOCK_MONOTONIC, &due);
}

/* --- Idleness --------------------------------------------------------------
 * While no thread holds the GVL (every one asleep, waiting for I/O or for
 * work), a tick samples nothing, yet each one wakes the worker: tens of
 * µs of CPU a tick on a virtual machine, a thousand times a second, in
 * every idle process. So once IDLE_AFTER_NS has passed with no tick
 * served and no thread holds the GVL (gvl_holder.h, kept at every
 * RESUMED and SUSPENDED), the worker stops its ticks; the next thread to
 * take the GVL (rp_worker_program_resumed, from the RESUMED hook) starts
 * them again. A thread that holds the GVL — running, waiting for a core,
 * or waiting in C code without releasing it — keeps them going. Ticks
 * are skipped only where they would have sampled nothing: the weights,
 * differences of clocks, are the same. */
#define IDLE_AFTER_NS 20000000

static atomic_bool idle;            /* ticks stopped: set by the worker, cleared by either */
static _Atomic uint64_t resumes;    /* GVL acquisitions seen in the main Ractor */
static _Atomic uint64_t idle_pauses; /* how often ticks were stopped */
static _Atomic int64_t idle_ns;      /* how long, in all (pauses ended) */

/* Worker's own: the stretch being watched. */
typedef struct idle_watch {
    int64_t since_ns;  /* its start, CLOCK_MONOTONIC */
    uint64_t rounds;   /* rp_sampler_rounds_served at its start */
    bool paused;       /* the worker stopped its ticks */
    int64_t paused_at_ns;
} idle_watch;
static idle_watch watch;

static void watch_from(int64_t now)
{
    watch.since_ns = now;
    watch.rounds = rp_sampler_rounds_served();
}

static void resume_ticks(int64_t now)
{
    rp_timer_pause_idle(false);
    watch.paused = false;
    atomic_fetch_add_explicit(&idle_ns, now - watch.paused_at_ns, memory_order_relaxed);
    watch_from(now);
}

/* Sampling job (GVL held), after it counted its round: a thread runs
 * Ruby code, so ticks stopped for idleness start again — also when no
 * RESUMED event said so (see pause_ticks). A load when they run. */
static void job_served(void)
{
    if (atomic_load(&idle) && atomic_exchange(&idle, false))
        sem_post(&wake);
}

/* Stops the ticks, unless a thread took the GVL meanwhile, or the
 * sampling job ran since the stretch began: each says so by counting
 * (`resumes`, rp_sampler_rounds_served) before it reads `idle` (all
 * sequentially consistent), so either this sees its count or it sees
 * `idle` and wakes the worker. The job's part is what keeps a thread
 * that runs Ruby without a RESUMED event sampled: Ruby's
 * thread_sched_to_waiting_until_wakeup keeps the GVL when an interrupt is
 * pending, and so can emit SUSPENDED with no RESUMED after it, leaving
 * the agent believing no thread holds the GVL; the tick that was pending
 * is served when that thread reaches a safepoint, and ticks go on. */
static void pause_ticks(int64_t now)
{
    uint64_t before = atomic_load(&resumes);
    atomic_store(&idle, true);
    if (atomic_load(&resumes) != before || rp_sampler_rounds_served() != watch.rounds || !rp_gvl_holder_none()) {
        atomic_store(&idle, false);
        watch_from(now);
        return;
    }
    rp_timer_pause_idle(true);
    watch.paused = true;
    watch.paused_at_ns = now;
    atomic_fetch_add_explicit(&idle_pauses, 1, memory_order_relaxed);
}

/* Worker, after every wake-up: stops the ticks when no thread has held
 * the GVL for a while, starts them when one takes it. */
static void watch_idleness(void)
{
    int64_t now = rp_monotonic_ns();
    if (watch.paused) {
        if (!atomic_load(&idle))
            resume_ticks(now);
        return;
    }
    if (!rp_timer_wanted() || rp_sampler_rounds_served() != watch.rounds)
        watch_from(now);
    else if (now - watch.since_ns >= IDLE_AFTER_NS && rp_gvl_holder_none())
        pause_ticks(now);
}

/* How often the worker wakes by itself while ticks run: to see whether
 * the program has gone idle (the ticks do not wake it; the sampling job
 * does, at hand-overs) and whether the rperf gem's profiler started. */
#define WATCH_NS 20000000

/* Waits for a hand-over, a posted job, a rotation or stop; while ticks
 * run, at most WATCH_NS. Paused, only a thread taking the GVL (or one of
 * those) has anything for it. */
static void wait_for_work(void)
{
    wait_or_rotation(watch.paused ? 0 : WATCH_NS);
}

/* Worker: asks for the next part when an interval has passed; intervals
 * missed while the machine was busy are skipped, not replayed. */
static void rotate_when_due(void)
{
    rotation_now();
    if (!current.interval_ns || !current.due)
        return;
    int64_t now = rp_monotonic_ns();
    if (now < current.next_ns)
        return;
    while (current.next_ns <= now)
        current.next_ns += current.interval_ns;
    current.due();
}

/* Whether the handler on `signo` is the rperf gem's: a function of its
 * C extension, rperf.so. The handler's address is compared, never
 * called. */
static bool handler_is_the_gems(int signo)
{
    struct sigaction current;
    if (sigaction(signo, NULL, &current) != 0)
        return false;
    void *fn = (current.sa_flags & SA_SIGINFO) ? (void *)current.sa_sigaction : (void *)current.sa_handler;
    if (fn == (void *)SIG_DFL || fn == (void *)SIG_IGN)
        return false;
    Dl_info where;
    if (!dladdr(fn, &where) || !where.dli_fname)
        return false;
    const char *base = strrchr(where.dli_fname, '/');
    return strcmp(base ? base + 1 : where.dli_fname, "rperf.so") == 0;
}

/* Worker, every WATCH_NS at most: once the rperf gem's own profiler has
 * started in this process (its lib loaded instead of the agent's API; it
 * puts its handler on its timer signal at Rperf.start), the agent is told
 * (once per worker), so that two profilers do not both run — and the
 * gem's stop, which tidies away the session directory it finds, does not
 * take the agent's profile with it. */
static void watch_for_gem(int64_t *next_check_ns, bool *told)
{
    if (!gem_signal || *told)
        return;
    int64_t now = rp_monotonic_ns();
    if (now < *next_check_ns)
        return;
    *next_check_ns = now + WATCH_NS;
    if (!handler_is_the_gems(gem_signal))
        return;
    *told = true;
    if (gem_started)
        gem_started();
}

/* Worker: runs the job the GVL side posted, if any. */
static void run_posted_job(void)
{
    void (*job)(void *) = atomic_load_explicit(&posted_job, memory_order_acquire);
    if (!job)
        return;
    job(posted_arg);
    atomic_store_explicit(&posted_job, NULL, memory_order_release);
}

void rp_worker_fold_now(void)
{
    fold_handed_over();
    rp_sample_buf_prefault();
}

static void *worker_main(void *arg)
{
    (void)arg;
    watch = (idle_watch){0};
    watch_from(rp_monotonic_ns());
    current.seq = UINT32_MAX; /* read afresh, counting from now */
    rotation_now();
    int64_t next_gem_check_ns = 0;
    bool told_gem = false;
    while (!atomic_load(&stopping)) {
        rp_sample_buf_prefault();
        wait_for_work();
        watch_idleness();
        fold_handed_over();
        rotate_when_due();
        run_posted_job();
        watch_for_gem(&next_gem_check_ns, &told_gem);
    }
    if (watch.paused)
        atomic_fetch_add(&idle_ns, rp_monotonic_ns() - watch.paused_at_ns);
    fold_handed_over();
    run_posted_job();
    rp_agent_thread_account(&worker);
    return NULL;
}

int rp_worker_start(void)
{
    sem_init(&wake, 0, 0);
    atomic_store(&stopping, false);
    atomic_store(&idle, false);
    rp_worker_update_ticks();
    rp_sample_buf_set_wakeup(wake_worker);
    rp_sample_buf_prefault_reset();
    rp_sampler_set_on_served(job_served);
    int rc = rp_agent_thread_start(&worker, "rperf-worker", worker_main);
    if (rc != 0) {
        rp_log("cannot profile: cannot start the worker thread: %s", strerror(rc));
        return -1;
    }
    if (rp_timer_start() != 0)
        rp_log("cannot sample: cannot start the ticker thread: %s", strerror(errno));
    return 0;
}

bool rp_worker_stop(void)
{
    rp_timer_stop(); /* no tick after this */
    if (!worker.running)
        return true;
    atomic_store(&stopping, true);
    sem_post(&wake);
    /* A worker that could not even start (a fork child whose allocator was
     * locked by another thread at fork) is left behind after the wait. */
    return rp_agent_thread_join(&worker);
}

void rp_worker_watch_gem(int signo, void (*fn)(void))
{
    gem_signal = signo;
    gem_started = fn;
}

void rp_worker_forget(void)
{
    rp_agent_thread_forget(&worker);
    /* A part the parent's worker had not written is the parent's. */
    atomic_store(&posted_job, NULL);
    rp_timer_forget();
    atomic_store(&idle, false);
    atomic_store(&idle_pauses, 0);
    atomic_store(&idle_ns, 0);
}

void rp_worker_set_rotation(int64_t interval_ns, void (*due)(void))
{
    atomic_fetch_add_explicit(&rotation_seq, 1, memory_order_relaxed); /* odd: being written */
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&rotation_interval_ns, interval_ns, memory_order_relaxed);
    atomic_store_explicit(&rotation_due, due, memory_order_relaxed);
    atomic_fetch_add_explicit(&rotation_seq, 1, memory_order_release);
}

bool rp_worker_post(void (*job)(void *), void *arg)
{
    if (!worker.running || atomic_load_explicit(&posted_job, memory_order_acquire))
        return false;
    posted_arg = arg;
    atomic_store_explicit(&posted_job, job, memory_order_release);
    sem_post(&wake);
    return true;
}

void rp_worker_program_resumed(void)
{
    atomic_fetch_add(&resumes, 1);
    if (atomic_load(&idle) && atomic_exchange(&idle, false))
        sem_post(&wake);
}

void rp_worker_idle_totals(uint64_t *pauses, int64_t *ns)
{
    *pauses = atomic_load(&idle_pauses);
    *ns = atomic_load(&idle_ns);
}

void rp_worker_update_ticks(void)
{
    int hz = rp_recordings_tick_frequency();
    if (hz > 0) {
        rp_timer_set_frequency(hz);
        rp_worker_program_resumed(); /* a Ruby thread runs: this one */
    }
    rp_timer_set_running(hz > 0);
}

bool rp_worker_running(void)
{
    return worker.running;
}

int64_t rp_worker_cpu_ns(void)
{
    return rp_agent_thread_cpu_ns(&worker) + rp_timer_cpu_ns();
}

void rp_worker_context_switches(long *voluntary, long *involuntary)
{
    long ticker_voluntary, ticker_involuntary;
    rp_timer_context_switches(&ticker_voluntary, &ticker_involuntary);
    rp_agent_thread_switches(&worker, voluntary, involuntary);
    *voluntary += ticker_voluntary;
    *involuntary += ticker_involuntary;
}
