/*
 * agent/sampling/worker.h — the agent's background work.
 *
 * Owns: the worker thread's life, and through it the ticker's (timer.h),
 * which starts and stops with it. The worker folds each buffer the sampler
 * hands over into the aggregator without ever taking the GVL, writes the
 * parts handed to it, asks for parts when an interval has passed, and stops
 * the ticks while the program is idle. Every signal is blocked in it, so
 * the program's own signals always reach the program's threads.
 */
#ifndef RPERF_AGENT_WORKER_H
#define RPERF_AGENT_WORKER_H

#include <stdbool.h>
#include <stdint.h>


/* GVL held: starts the worker and the ticker, ticking at the rate the
 * recordings want, and waits (at most 50 ms) until the ticker runs.
 * Returns 0 or -1 (already logged). */
int rp_worker_start(void);

/* Whether the worker runs (in this process). */
bool rp_worker_running(void);

/* Main thread (GVL held): stops the worker after it has folded what was
 * handed over, and joins it. Returns false when the worker did not end
 * within 5 s: its tables must then not be touched. Idempotent. */
bool rp_worker_stop(void);

/* At start, before any worker: `fn` (async-signal-safe: it triggers a
 * postponed job) is called on the worker, once, when the rperf gem's own
 * profiler has started in this process: its C extension's handler is on
 * `signo`, the gem's timer signal. */
void rp_worker_watch_gem(int signo, void (*fn)(void));

/* Fork child: the worker thread does not exist here; forget it. */
void rp_worker_forget(void);

/* Main thread at start (GVL held): with `interval_ns` > 0, the worker
 * calls `due` (async-signal-safe: it triggers a postponed job) each time
 * an interval has passed, also while sampling is paused (RPERF_INTERVAL).
 * Counted from each worker's start (a fork child's intervals begin with
 * its profile). */
void rp_worker_set_rotation(int64_t interval_ns, void (*due)(void));

/* GVL held: hands `job(arg)` to the worker, which runs it without the GVL
 * (writing a profile part to disk, off the program's threads). Returns
 * false when the worker still has an earlier job, or does not run: the
 * caller then runs it itself. A job handed over is run before the worker
 * ends. */
bool rp_worker_post(void (*job)(void *), void *arg);

/* The worker thread only, inside a posted job: folds what the sampling
 * side handed over and keeps the buffers' pages ready, as the worker's
 * loop would. A long job (writing a part takes most of a second at
 * 100,000 stacks) calls it between chunks, or at 10 kHz both sample
 * buffers would fill meanwhile and samples be dropped. */
void rp_worker_fold_now(void);

/* GVL held, whenever a recording opens, closes, pauses or resumes: ticks
 * at the highest rate an accepting recording wants, or none at all (no
 * recording takes samples: a paused process gets no tick). Applies to a
 * running worker and to the next one started. */
void rp_worker_update_ticks(void);

/* RESUMED hook of the main Ractor (GVL held, on the thread that took it):
 * a thread runs Ruby code, so ticks stopped for idleness start again. A
 * counter and a load when they run. */
void rp_worker_program_resumed(void);

/* Any thread: how often the worker stopped its ticks while no thread
 * held the GVL, and for how long in all (ns, the pauses ended). */
void rp_worker_idle_totals(uint64_t *pauses, int64_t *ns);

/* GVL held, or on the worker itself: the CPU time the process's worker
 * and ticker threads have taken so far (those running and those that
 * ended), ns. Mostly the ticker's wake-ups: what time sampling costs
 * beside the job on the program's threads. */
int64_t rp_worker_cpu_ns(void);

/* After rp_worker_stop: the voluntary and involuntary context switches
 * the worker and ticker threads made (about one per tick), which are the
 * agent's, not the program's. */
void rp_worker_context_switches(long *voluntary, long *involuntary);

#endif
