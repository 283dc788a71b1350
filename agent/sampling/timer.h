/*
 * agent/sampling/timer.h — the sampling clock.
 *
 * Owns: the two ways of ticking at the frequency the recordings want
 * (recording.h). Signal mode:
 * a POSIX timer (timer_create, CLOCK_MONOTONIC) delivers a real-time
 * signal to the worker thread only (SIGEV_THREAD_ID), whose handler calls
 * rp_sampler_trigger. Sleeping mode: the worker thread itself sleeps to
 * absolute deadlines (RPERF_SIGNAL=false, or when the program already
 * handles the chosen signal).
 */
#ifndef RPERF_AGENT_TIMER_H
#define RPERF_AGENT_TIMER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Main thread: installs the tick handler for `signo`, unless the program
 * already has a handler there. Returns 0, or -1 when the signal is taken
 * (then nothing was changed). */
int rp_timer_claim_signal(int signo);

/* Worker thread, for itself (tid): creates a periodic timer sending
 * `signo` to it, running unless rp_timer_set_running(false) said
 * otherwise. Returns 0 or -1 (errno set). */
int rp_timer_start_signal(int signo, pid_t tid, int frequency);

/* Worker thread, before it ends: deletes its timer. */
void rp_timer_stop_signal(void);

/* Any thread but a signal handler (the Rperf API, GVL held): stops or
 * restarts the signal timer's ticks; remembered for a timer not created
 * yet. Restarting arms the timer unless it still runs; stopping is left to
 * the worker (rp_timer_settle), so that a program whose profile blocks
 * follow each other closely makes no system call for the timer at all. */
void rp_timer_set_running(bool running);

/* Any thread but a signal handler: the tick rate from now on (a timer
 * running is re-armed at it; remembered for one not created yet). */
void rp_timer_set_frequency(int frequency);

/* Worker thread, after each wake-up: disarms a timer whose ticks are no
 * longer wanted (at most one tick after they stopped being wanted). */
void rp_timer_settle(void);

/* Worker thread: stops the ticks while no thread holds the GVL, or
 * lets them run again as the recordings want them (worker.c, idleness). */
void rp_timer_pause_idle(bool pause);
/* Fork child: the parent's timer does not exist here. */
void rp_timer_forget(void);

/* Main thread, after the worker thread has exited: puts back the
 * program's previous disposition of the signal. */
void rp_timer_release_signal(void);

/* Worker: whether the program has put a handler of its own on the claimed
 * signal since (the rperf gem's own profiler claims the same SIGRTMIN+8):
 * the agent's ticks would then be that handler's, and its samples. */
bool rp_timer_signal_taken(void);

/* Worker: no more ticks, until a Ruby thread asks for them again. */
void rp_timer_disarm(void);

/* Sleeping mode (worker thread): absolute CLOCK_MONOTONIC deadlines. */
typedef struct rp_ticker {
    struct timespec deadline;
    int64_t interval_ns;
} rp_ticker;

void rp_ticker_start(rp_ticker *t, int frequency);
/* Moves to the next deadline in the future; ticks missed while the
 * machine was busy are skipped, not replayed in a burst. */
void rp_ticker_advance(rp_ticker *t);

/* `ns` (>= 0) from now on `clock`, as an absolute deadline. */
struct timespec rp_deadline_in(clockid_t clock, int64_t ns);

#endif
