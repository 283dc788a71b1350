/*
 * agent/sampling/timer.h — the sampling clock: the ticker thread.
 *
 * Owns: the agent's second background thread, which does one thing: it
 * sleeps to absolute CLOCK_MONOTONIC deadlines at the rate the recordings
 * want and triggers the sampling job at each (rp_sampler_trigger). No
 * signal is involved, by design: the program owns every signal it has —
 * whatever it or a library does with SIGRTMIN+8 or any other (a handler,
 * SIG_DFL, SIG_IGN, a mask), no tick can kill it, run its handler, or be
 * lost to it. The thread blocks every signal and runs at a timer slack of
 * 1 ns, so its deadlines are as exact as a POSIX timer's; a tick missed
 * while the machine was busy is skipped, not replayed in a burst (the
 * weights, differences of clocks, lose nothing by it). Kept apart from the
 * worker (worker.h), whose folds and part writes would delay ticks.
 *
 * Context: rp_timer_start/stop on a Ruby thread holding the GVL (through
 * worker.h); the setters from any thread but a signal handler, except
 * rp_timer_pause_idle(false), which is async-signal-safe.
 */
#ifndef RPERF_AGENT_TIMER_H
#define RPERF_AGENT_TIMER_H

#include <stdbool.h>
#include <stdint.h>

/* Starts the ticker thread, ticking as the setters below last said, and
 * waits (at most 50 ms) until it runs. Returns 0, or -1 with errno set. */
int rp_timer_start(void);

/* Stops and joins the ticker thread. Idempotent. */
void rp_timer_stop(void);

/* Ticks wanted or not (a recording accepts samples). Stopping takes
 * effect at the next deadline, without a system call, so that a program
 * whose profile blocks follow each other closely makes none for the
 * timer; restarting wakes the thread. */
void rp_timer_set_running(bool running);

/* Whether ticks are wanted (rp_timer_set_running's last word). */
bool rp_timer_wanted(void);

/* The tick rate from now on. */
void rp_timer_set_frequency(int frequency);

/* The worker's: no tick while no thread holds the GVL (worker.c,
 * idleness), or ticks again. */
void rp_timer_pause_idle(bool pause);

/* Fork child: the parent's ticker thread does not exist here. */
void rp_timer_forget(void);

/* The CPU time the process's ticker threads have taken (the running one
 * and those that ended), ns; and the context switches of those that
 * ended (about one per tick: the agent's, not the program's). See
 * agent_thread.h. */
int64_t rp_timer_cpu_ns(void);
void rp_timer_context_switches(long *voluntary, long *involuntary);

#endif
