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
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "../../common/clock.h"
#include "sampler.h"

static pthread_t ticker_thread;
static bool ticker_running; /* the GVL side's */
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
/* Ticker threads that ended: their CPU time and context switches, and
 * whether the running one has added its own yet (it does as it ends). */
static _Atomic int64_t ended_cpu_ns;
static _Atomic long ended_voluntary, ended_involuntary;
static atomic_bool ticker_counted;

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

/* Ticker: adds its own CPU time and context switches as it ends. */
static void count_own_usage(void)
{
    struct rusage usage;
    if (getrusage(RUSAGE_THREAD, &usage) == 0) {
        atomic_fetch_add(&ended_voluntary, usage.ru_nvcsw);
        atomic_fetch_add(&ended_involuntary, usage.ru_nivcsw);
    }
    atomic_fetch_add(&ended_cpu_ns, rp_clock_ns(CLOCK_THREAD_CPUTIME_ID));
    atomic_store(&ticker_counted, true);
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
    rp_ticker t = {.interval_ns = 0};
    while (!atomic_load(&stopping)) {
        if (!ticking()) {
            t.interval_ns = 0; /* counted afresh from when they are wanted */
            sleep_until_wanted();
            continue;
        }
        int hz = atomic_load(&tick_hz);
        if (t.interval_ns != 1000000000 / hz)
            rp_ticker_start(&t, hz);
        if (sem_clockwait(&kick, CLOCK_MONOTONIC, &t.deadline) == 0 || errno != ETIMEDOUT)
            continue;
        if (ticking())
            rp_sampler_trigger();
        rp_ticker_advance(&t);
    }
    count_own_usage();
    return NULL;
}

int rp_timer_start(int frequency)
{
    if (ticker_running)
        return 0;
    sem_init(&kick, 0, 0);
    sem_init(&started, 0, 0);
    atomic_store(&stopping, false);
    atomic_store(&asleep, false);
    atomic_store(&ticker_counted, false);
    atomic_store(&tick_hz, frequency);
    sigset_t all, saved;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    int rc = pthread_create(&ticker_thread, NULL, ticker_main, NULL);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    /* named here, so that it has its name from the start */
    pthread_setname_np(ticker_thread, "rperf-ticks");
    ticker_running = true;
    /* Sampling should begin with the program, not when a busy machine
     * gets round to the new thread; yet never wait long (a fork child's
     * allocator may hold it up for good). */
    struct timespec deadline = rp_deadline_in(CLOCK_MONOTONIC, 50 * 1000000LL);
    while (sem_clockwait(&started, CLOCK_MONOTONIC, &deadline) != 0 && errno == EINTR)
        ;
    return 0;
}

void rp_timer_stop(void)
{
    if (!ticker_running)
        return;
    atomic_store(&stopping, true);
    sem_post(&kick);
    /* As the worker's: the program's exit never hangs on the agent. */
    struct timespec deadline = rp_deadline_in(CLOCK_REALTIME, 5 * 1000000000LL);
    pthread_timedjoin_np(ticker_thread, NULL, &deadline);
    ticker_running = false;
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

void rp_timer_set_frequency(int frequency)
{
    if (atomic_exchange(&tick_hz, frequency) != frequency && ticker_running)
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
    ticker_running = false;
    atomic_store(&paused, false);
    atomic_store(&asleep, false);
    atomic_store(&ended_cpu_ns, 0); /* the parent's, not this process's */
    atomic_store(&ended_voluntary, 0);
    atomic_store(&ended_involuntary, 0);
}

int64_t rp_timer_cpu_ns(void)
{
    int64_t ns = atomic_load(&ended_cpu_ns);
    clockid_t clock;
    struct timespec now;
    /* Only while rp_timer_stop waits can the thread end between these
     * reads (its share is then missed); it runs on the GVL side, as
     * every caller does. */
    if (ticker_running && !atomic_load(&ticker_counted) && pthread_getcpuclockid(ticker_thread, &clock) == 0 &&
        clock_gettime(clock, &now) == 0)
        ns += rp_timespec_ns(now);
    return ns;
}

void rp_timer_context_switches(long *voluntary, long *involuntary)
{
    *voluntary = atomic_load(&ended_voluntary);
    *involuntary = atomic_load(&ended_involuntary);
}

static void add_ns(struct timespec *ts, int64_t ns)
{
    ts->tv_nsec += ns % 1000000000;
    ts->tv_sec += ns / 1000000000;
    if (ts->tv_nsec >= 1000000000) {
        ts->tv_nsec -= 1000000000;
        ts->tv_sec++;
    }
}

struct timespec rp_deadline_in(clockid_t clock, int64_t ns)
{
    struct timespec t;
    clock_gettime(clock, &t);
    add_ns(&t, ns);
    return t;
}

void rp_ticker_start(rp_ticker *t, int frequency)
{
    t->interval_ns = 1000000000 / frequency;
    t->deadline = rp_deadline_in(CLOCK_MONOTONIC, t->interval_ns);
}

void rp_ticker_advance(rp_ticker *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    add_ns(&t->deadline, t->interval_ns);
    int64_t behind = (now.tv_sec - t->deadline.tv_sec) * 1000000000 + (now.tv_nsec - t->deadline.tv_nsec);
    if (behind > 0)
        add_ns(&t->deadline, (behind / t->interval_ns + 1) * t->interval_ns);
}
