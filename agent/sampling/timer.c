/*
 * agent/sampling/timer.c — signal timer and sleeping ticker. See timer.h.
 */
#include "timer.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "sampler.h"

/* The timer is created and deleted by the worker and paused and resumed
 * from a Ruby thread: `lock` orders the two. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static timer_t tick_timer;
static bool timer_exists;
static bool timer_armed;
static bool ticks_wanted = true;
static bool idle_pause; /* the worker's: no thread holds the GVL */
static struct timespec tick_interval;
static int claimed_signal;
static struct sigaction previous_action;

/* Signal handler — runs on the worker thread (the only thread the timer
 * targets). Async-signal-safe: an atomic add and rb_postponed_job_trigger. */
static void on_tick(int signo, siginfo_t *info, void *context)
{
    (void)signo;
    (void)info;
    (void)context;
    int saved_errno = errno;
    rp_sampler_trigger();
    errno = saved_errno;
}

int rp_timer_claim_signal(int signo)
{
    struct sigaction current;
    if (sigaction(signo, NULL, &current) != 0)
        return -1;
    /* Ours already when a fork child inherits the parent's disposition. */
    bool ours = (current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_tick;
    bool has_handler = (current.sa_flags & SA_SIGINFO) ? current.sa_sigaction != NULL
                                                       : current.sa_handler != SIG_DFL;
    if (has_handler && !ours)
        return -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_tick;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask);
    if (sigaction(signo, &sa, &previous_action) != 0)
        return -1;
    claimed_signal = signo;
    return 0;
}

static struct timespec interval_of(int frequency)
{
    int64_t ns = 1000000000 / frequency;
    return (struct timespec){.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
}

/* `lock` held: arms the timer at the tick interval, or disarms it. */
static int arm(bool on)
{
    struct timespec every = on ? tick_interval : (struct timespec){0, 0};
    struct itimerspec its = {.it_interval = every, .it_value = every};
    int rc = timer_settime(tick_timer, 0, &its, NULL);
    if (rc == 0)
        timer_armed = on;
    return rc;
}

int rp_timer_start_signal(int signo, pid_t tid, int frequency)
{
    struct sigevent sev;
    memset(&sev, 0, sizeof(sev));
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = signo;
    sev._sigev_un._tid = tid;
    pthread_mutex_lock(&lock);
    tick_interval = interval_of(frequency);
    int rc = timer_create(CLOCK_MONOTONIC, &sev, &tick_timer);
    if (rc == 0 && arm(ticks_wanted && !idle_pause) != 0) {
        int err = errno;
        timer_delete(tick_timer);
        errno = err;
        rc = -1;
    }
    timer_exists = rc == 0;
    pthread_mutex_unlock(&lock);
    return rc;
}

void rp_timer_stop_signal(void)
{
    pthread_mutex_lock(&lock);
    if (timer_exists) {
        timer_delete(tick_timer);
        timer_exists = timer_armed = false;
    }
    pthread_mutex_unlock(&lock);
}

void rp_timer_set_running(bool running)
{
    pthread_mutex_lock(&lock);
    ticks_wanted = running;
    if (running && !idle_pause && timer_exists && !timer_armed)
        arm(true);
    pthread_mutex_unlock(&lock);
}

void rp_timer_set_frequency(int frequency)
{
    pthread_mutex_lock(&lock);
    tick_interval = interval_of(frequency);
    if (timer_exists && timer_armed)
        arm(true);
    pthread_mutex_unlock(&lock);
}

void rp_timer_settle(void)
{
    pthread_mutex_lock(&lock);
    if ((!ticks_wanted || idle_pause) && timer_exists && timer_armed)
        arm(false);
    pthread_mutex_unlock(&lock);
}

void rp_timer_pause_idle(bool pause)
{
    pthread_mutex_lock(&lock);
    idle_pause = pause;
    bool want = ticks_wanted && !pause;
    if (timer_exists && timer_armed != want)
        arm(want);
    pthread_mutex_unlock(&lock);
}

void rp_timer_forget(void)
{
    pthread_mutex_init(&lock, NULL);
    timer_exists = timer_armed = idle_pause = false;
}

/* Whether `signo`'s handler is on_tick now. */
static bool handler_is_ours(int signo)
{
    struct sigaction current;
    return sigaction(signo, NULL, &current) == 0 && (current.sa_flags & SA_SIGINFO) &&
           current.sa_sigaction == on_tick;
}

void rp_timer_release_signal(void)
{
    /* Only once no tick can be pending: restoring SIG_DFL earlier would let
     * a late real-time signal terminate the process. And only over our own
     * handler: one the program installed since is the program's. */
    if (claimed_signal) {
        if (handler_is_ours(claimed_signal))
            sigaction(claimed_signal, &previous_action, NULL);
        claimed_signal = 0;
    }
}

bool rp_timer_signal_taken(void)
{
    int signo = claimed_signal;
    return signo && !handler_is_ours(signo);
}

void rp_timer_disarm(void)
{
    pthread_mutex_lock(&lock);
    ticks_wanted = false;
    if (timer_exists && timer_armed)
        arm(false);
    pthread_mutex_unlock(&lock);
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
