/*
 * agent/sampling/timer.c — the ticker thread. See timer.h.
 *
 * Context: ticker_main runs on its own pthread with every signal blocked,
 * never holds the GVL and calls Ruby only through rp_sampler_trigger
 * (rb_postponed_job_trigger, async-signal-safe). The setters run on Ruby
 * threads and on the worker; start and stop on a Ruby thread holding the
 * GVL.
 */
#include "timer.h"

#include <errno.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <sys/prctl.h>

#include "../base/agent_thread.h"
#include "sampler.h"

static rp_agent_thread ticker;
static sem_t kick;          /* wakes the ticker: ticks wanted again, a new rate, stop */
static sem_t started;       /* posted by the ticker once it runs */
static atomic_bool stopping;
static atomic_bool wanted = true; /* a recording accepts samples */
static atomic_bool paused;        /* the worker's idle pause */
static atomic_int tick_hz = 1000;
/* The ticker waits with no deadline, for ticks to be wanted again: a
 * setter that wants them must post `kick`. Set before the ticker looks a
 * last time whether they are wanted, and read by a setter after it said
 * they are (both sequentially consistent): either the ticker sees the
 * change or the setter sees it asleep. */
static atomic_bool asleep;

/* Absolute CLOCK_MONOTONIC deadlines at an interval (the ticker's own). */
typedef struct deadlines {
    struct timespec next;
    int64_t interval_ns; /* 0: not started */
    uint64_t random;     /* xorshift state for the jitter */
} deadlines;

/* --- deadlines ------------------------------------------------------------- */

static void add_ns(struct timespec *ts, int64_t ns)
{
    ts->tv_nsec += ns % 1000000000;
    ts->tv_sec += ns / 1000000000;
    if (ts->tv_nsec >= 1000000000) {
        ts->tv_nsec -= 1000000000;
        ts->tv_sec++;
    }
}

static void start_deadlines(deadlines *t, int frequency)
{
    t->interval_ns = 1000000000 / frequency;
    clock_gettime(CLOCK_MONOTONIC, &t->next);
    t->random ^= (uint64_t)t->next.tv_nsec * 0x9e3779b97f4a7c15ULL | 1;
    add_ns(&t->next, t->interval_ns);
}

/* The widest spread of a tick around its deadline (see jittered). */
#define JITTER_MAX_NS 500000

/* When the tick at the next deadline fires: at a random point within a
 * quarter of the interval either side of it, and at most 250 us (the
 * deadlines themselves keep the rate; at 5 Hz a tick 50 ms late could
 * leave a 300 ms program with no sample at all). A program whose cycle is near the interval — a thread that
 * works 0.3 ms and sleeps 0.7 ms — would otherwise meet the ticks at the
 * same point of its cycle for as long as the two stay in step, and Linux
 * keeps them in step: it wakes a sleeping thread (50 us of timer slack)
 * with the ticker's own timer, so every tick found that thread waking,
 * off the GVL, and its work had 200 samples in 3,300 ticks. A spread far
 * wider than the slack breaks the step at any rate. */
static struct timespec jittered(deadlines *t)
{
    t->random ^= t->random << 13;
    t->random ^= t->random >> 7;
    t->random ^= t->random << 17;
    int64_t span = t->interval_ns / 2 < JITTER_MAX_NS ? t->interval_ns / 2 : JITTER_MAX_NS;
    struct timespec at = t->next;
    add_ns(&at, span > 0 ? (int64_t)(t->random % (uint64_t)span) : 0);
    int64_t back = span / 2;
    at.tv_nsec -= back % 1000000000;
    at.tv_sec -= back / 1000000000;
    if (at.tv_nsec < 0) {
        at.tv_nsec += 1000000000;
        at.tv_sec--;
    }
    return at;
}

/* Moves to the next deadline in the future; ticks missed while the
 * machine was busy are skipped, not replayed in a burst. */
static void advance(deadlines *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    add_ns(&t->next, t->interval_ns);
    int64_t behind = (now.tv_sec - t->next.tv_sec) * 1000000000 + (now.tv_nsec - t->next.tv_nsec);
    if (behind > 0)
        add_ns(&t->next, (behind / t->interval_ns + 1) * t->interval_ns);
}

/* --- the ticker thread ------------------------------------------------------ */

static bool ticking(void)
{
    return atomic_load(&wanted) && !atomic_load(&paused);
}

/* Ticker: waits until ticks are wanted again, or the thread stops. */
static void sleep_until_wanted(void)
{
    atomic_store(&asleep, true);
    if (!ticking() && !atomic_load(&stopping))
        sem_wait(&kick);
    atomic_store(&asleep, false);
}

/* The ticker thread. A post of `kick` while it waits for a deadline
 * wakes it early: it looks again at what is wanted and keeps its
 * deadlines unless the rate changed. */
static void *ticker_main(void *arg)
{
    (void)arg;
    /* A deadline's default slack is 50 us, 5% of a 1 ms tick. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    sem_post(&started);
    deadlines t = {.interval_ns = 0, .random = 0x2545f4914f6cdd1dULL};
    while (!atomic_load(&stopping)) {
        if (!ticking()) {
            t.interval_ns = 0; /* counted afresh from when they are wanted */
            sleep_until_wanted();
            continue;
        }
        int hz = atomic_load(&tick_hz);
        if (t.interval_ns != 1000000000 / hz)
            start_deadlines(&t, hz);
        struct timespec at = jittered(&t);
        if (sem_clockwait(&kick, CLOCK_MONOTONIC, &at) == 0 || errno != ETIMEDOUT)
            continue;
        if (ticking())
            rp_sampler_trigger();
        advance(&t);
    }
    rp_agent_thread_account(&ticker);
    return NULL;
}

int rp_timer_start(void)
{
    if (ticker.running)
        return 0;
    sem_init(&kick, 0, 0);
    sem_init(&started, 0, 0);
    atomic_store(&stopping, false);
    atomic_store(&asleep, false);
    int rc = rp_agent_thread_start(&ticker, "rperf-ticks", ticker_main);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    /* Sampling should begin with the program, not when a busy machine
     * gets round to the new thread; yet never wait long (a fork child's
     * allocator may hold it up for good). */
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    add_ns(&deadline, 50 * 1000000LL);
    while (sem_clockwait(&started, CLOCK_MONOTONIC, &deadline) != 0 && errno == EINTR)
        ;
    return 0;
}

void rp_timer_stop(void)
{
    if (!ticker.running)
        return;
    atomic_store(&stopping, true);
    sem_post(&kick);
    rp_agent_thread_join(&ticker);
}

/* After saying that ticks are wanted: wakes a ticker that waits for it. */
static void wake_if_asleep(void)
{
    if (atomic_load(&asleep))
        sem_post(&kick);
}

void rp_timer_set_running(bool running)
{
    atomic_store(&wanted, running);
    if (running)
        wake_if_asleep();
}

bool rp_timer_wanted(void)
{
    return atomic_load(&wanted);
}

void rp_timer_set_frequency(int frequency)
{
    if (atomic_exchange(&tick_hz, frequency) != frequency && ticker.running)
        sem_post(&kick); /* the new rate from now, not from the next deadline */
}

void rp_timer_pause_idle(bool pause)
{
    atomic_store(&paused, pause);
    if (!pause)
        wake_if_asleep();
}

void rp_timer_forget(void)
{
    rp_agent_thread_forget(&ticker);
    atomic_store(&paused, false);
    atomic_store(&asleep, false);
}

int64_t rp_timer_cpu_ns(void)
{
    return rp_agent_thread_cpu_ns(&ticker);
}

void rp_timer_context_switches(long *voluntary, long *involuntary)
{
    rp_agent_thread_switches(&ticker, voluntary, involuntary);
}
