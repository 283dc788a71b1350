/*
 * agent/worker.c — the worker thread. See worker.h.
 *
 * Context: worker_main runs on its own pthread, never holds the GVL and
 * never calls Ruby except rb_postponed_job_trigger (async-signal-safe).
 * rp_worker_start/stop run on a Ruby thread holding the GVL.
 */
#include "worker.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "aggregator.h"
#include "log.h"
#include "sample_buf.h"
#include "sampler.h"
#include "timer.h"

static pthread_t worker_thread;
static bool worker_running;
static sem_t wake;          /* posted at hand-overs and at stop */
static sem_t armed;         /* posted by the worker once its timer runs */
static atomic_bool stopping;
static atomic_bool ticking = true; /* false while RPERF_DEFER pauses sampling */
static int timer_signal;    /* 0: the worker is the sleeping ticker */
static int tick_frequency;
static struct rusage worker_usage; /* written by the worker as it ends */

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

/* Waits for a hand-over or stop; in sleeping mode also ticks, unless
 * ticking is off, and then starts afresh when it is turned back on. */
static void wait_for_work(rp_ticker *ticker)
{
    if (timer_signal) {
        sem_wait(&wake); /* EINTR at each timer signal is fine */
        rp_timer_settle();
        return;
    }
    if (!atomic_load(&ticking)) {
        sem_wait(&wake);
        if (atomic_load(&ticking))
            rp_ticker_start(ticker, tick_frequency);
        return;
    }
    if (sem_clockwait(&wake, CLOCK_MONOTONIC, &ticker->deadline) != 0 && errno == ETIMEDOUT) {
        rp_sampler_trigger();
        rp_ticker_advance(ticker);
    }
}

/* The worker owns its timer: it creates it aimed at itself and deletes it
 * before it ends, so no tick can ever be sent to a thread that is gone.
 * It says when the timer runs (see wait_until_armed). */
static void *worker_main(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "rperf-worker");
    rp_ticker ticker;
    if (timer_signal &&
        rp_timer_start_signal(timer_signal, (pid_t)syscall(SYS_gettid), tick_frequency) != 0)
        rp_log("cannot sample: timer_create failed: %s", strerror(errno));
    if (!timer_signal)
        rp_ticker_start(&ticker, tick_frequency);
    sem_post(&armed);
    while (!atomic_load(&stopping)) {
        rp_sample_buf_prefault();
        wait_for_work(&ticker);
        fold_handed_over();
    }
    rp_timer_stop_signal();
    fold_handed_over();
    getrusage(RUSAGE_THREAD, &worker_usage); /* read after pthread_join */
    return NULL;
}

/* Starts the thread with every signal blocked except `timer_signal`. */
static int spawn_worker(int timer_signal)
{
    sigset_t only_timer, saved;
    sigfillset(&only_timer);
    if (timer_signal)
        sigdelset(&only_timer, timer_signal);
    pthread_sigmask(SIG_SETMASK, &only_timer, &saved);
    int rc = pthread_create(&worker_thread, NULL, worker_main, NULL);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    if (rc != 0) {
        rp_log("cannot profile: cannot start the worker thread: %s", strerror(rc));
        return -1;
    }
    worker_running = true;
    return 0;
}

/* GVL held, right after the worker was created. Sampling should begin
 * with the program, not when a busy machine gets round to scheduling the
 * new thread: a short-lived fork child would otherwise end unsampled. Yet
 * never wait long: in a fork child a non-fork-safe allocator (ASan's) may
 * hold the new thread up for good, and the program must not notice. */
static void wait_until_armed(void)
{
    struct timespec deadline = rp_deadline_in(CLOCK_MONOTONIC, 50 * 1000000LL);
    while (sem_clockwait(&armed, CLOCK_MONOTONIC, &deadline) != 0 && errno == EINTR)
        ;
}

int rp_worker_start(const rp_config *cfg)
{
    sem_init(&wake, 0, 0);
    sem_init(&armed, 0, 0);
    atomic_store(&stopping, false);
    tick_frequency = cfg->frequency;
    int signo = cfg->timer_signal;
    if (signo && rp_timer_claim_signal(signo) != 0) {
        if (cfg->verbose)
            rp_log("signal %d already has a handler in this program; "
                   "using the sleeping-thread timer instead", signo);
        signo = 0;
    }
    timer_signal = signo;
    rp_sample_buf_set_wakeup(wake_worker);
    rp_sample_buf_prefault_reset();
    if (spawn_worker(signo) != 0) {
        rp_timer_release_signal();
        return -1;
    }
    wait_until_armed();
    return 0;
}

bool rp_worker_stop(void)
{
    bool stopped = true;
    if (worker_running) {
        atomic_store(&stopping, true);
        sem_post(&wake);
        /* Never hang the program's exit on the agent: a worker that could
         * not even start (a fork child whose allocator was locked by another
         * thread at fork) is left behind after a generous wait. */
        struct timespec deadline = rp_deadline_in(CLOCK_REALTIME, 5 * 1000000000LL);
        stopped = pthread_timedjoin_np(worker_thread, NULL, &deadline) == 0;
        worker_running = false;
    }
    if (stopped)
        rp_timer_release_signal(); /* no tick can be pending any more */
    return stopped;
}

void rp_worker_forget(void)
{
    worker_running = false;
    rp_timer_forget();
}

void rp_worker_set_ticking(bool on)
{
    atomic_store(&ticking, on);
    rp_timer_set_running(on);
    if (on && worker_running && !timer_signal)
        sem_post(&wake);
}

void rp_worker_context_switches(long *voluntary, long *involuntary)
{
    *voluntary = worker_usage.ru_nvcsw;
    *involuntary = worker_usage.ru_nivcsw;
}
