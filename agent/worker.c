/*
 * agent/worker.c — the worker thread. See worker.h.
 *
 * Context: worker_main runs on its own pthread, never holds the GVL and
 * never calls Ruby except rb_postponed_job_trigger (async-signal-safe).
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
#include <unistd.h>

#include "aggregator.h"
#include "log.h"
#include "sample_buf.h"
#include "sampler.h"
#include "timer.h"

static pthread_t worker_thread;
static bool worker_running;
static sem_t wake;          /* posted at hand-overs and at stop */
static sem_t started;       /* posted once the worker knows its tid */
static atomic_bool stopping;
static pid_t worker_tid;
static bool sleeping_ticker;
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
        rp_sample_buf_return(buf);
    }
}

/* Waits for a hand-over or stop; in sleeping mode also ticks. */
static void wait_for_work(rp_ticker *ticker)
{
    if (!sleeping_ticker) {
        sem_wait(&wake); /* EINTR at each timer signal is fine */
        return;
    }
    if (sem_clockwait(&wake, CLOCK_MONOTONIC, &ticker->deadline) != 0 && errno == ETIMEDOUT) {
        rp_sampler_trigger();
        rp_ticker_advance(ticker);
    }
}

static void *worker_main(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "rperf-worker");
    worker_tid = (pid_t)syscall(SYS_gettid);
    sem_post(&started);
    rp_ticker ticker;
    if (sleeping_ticker)
        rp_ticker_start(&ticker, tick_frequency);
    while (!atomic_load(&stopping)) {
        wait_for_work(&ticker);
        fold_handed_over();
    }
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
    while (sem_wait(&started) != 0 && errno == EINTR)
        ;
    return 0;
}

int rp_worker_start(const rp_config *cfg)
{
    sem_init(&wake, 0, 0);
    sem_init(&started, 0, 0);
    atomic_store(&stopping, false);
    tick_frequency = cfg->frequency;
    int signo = cfg->timer_signal;
    if (signo && rp_timer_claim_signal(signo) != 0) {
        if (cfg->verbose)
            rp_log("signal %d already has a handler in this program; "
                   "using the sleeping-thread timer instead", signo);
        signo = 0;
    }
    sleeping_ticker = signo == 0;
    rp_sample_buf_set_wakeup(wake_worker);
    if (spawn_worker(signo) != 0) {
        rp_timer_release_signal();
        return -1;
    }
    if (signo && rp_timer_start_signal(signo, worker_tid, cfg->frequency) != 0) {
        rp_log("cannot profile: timer_create failed: %s", strerror(errno));
        rp_worker_stop();
        return -1;
    }
    return 0;
}

void rp_worker_stop(void)
{
    rp_timer_stop_signal();
    if (worker_running) {
        atomic_store(&stopping, true);
        sem_post(&wake);
        pthread_join(worker_thread, NULL);
        worker_running = false;
    }
    rp_timer_release_signal();
}

void rp_worker_forget(void)
{
    worker_running = false;
}

void rp_worker_context_switches(long *voluntary, long *involuntary)
{
    *voluntary = worker_usage.ru_nvcsw;
    *involuntary = worker_usage.ru_nivcsw;
}
