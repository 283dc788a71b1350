/*
 * agent/vm/gvl_holder.h — getting each tick to the thread that is running.
 *
 * Owns: knowing which Ruby thread of the main Ractor holds the GVL,
 * setting the postponed-job interrupt on that thread's execution context
 * when the timer ticks, and where the first tick since the sampling job
 * last ran found it (its context and current control frame).
 *
 * Why: rb_postponed_job_trigger, called from a thread that is not Ruby's
 * (the worker), interrupts the Ractor's `running_ec`. Ruby 3.4 sets that
 * field in ruby_thread_set_native, which a new thread's native thread runs
 * *before* it waits for the GVL; when that native thread starts after
 * another thread has taken the GVL, `running_ec` names a thread that is
 * waiting while another one runs. Every tick then interrupts the waiting
 * thread, and the running one takes no sample until the next GVL switch
 * (a blocking call, or Ruby's 100 ms time slice): its first stretch of
 * work was charged, all at once, to the stack where it first released the
 * GVL. Plain Ruby without the agent shows the stale `running_ec` in about
 * half the runs of a program that starts four threads.
 *
 * libruby exports nothing that addresses another thread's execution
 * context, so this module uses two offsets of Ruby 3.4's rb_thread_t and
 * rb_execution_context_t. It uses them only after checking them on the
 * running Ruby (see rp_gvl_holder_init); where they do not hold, ticks go
 * through rb_postponed_job_trigger alone, as before.
 */
#ifndef RPERF_AGENT_GVL_HOLDER_H
#define RPERF_AGENT_GVL_HOLDER_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/ruby_api.h"

/* Main thread, GVL held, once per process: checks the layout on the
 * running Ruby (which triggers `job` once, as a probe: the job must
 * tolerate a run without a tick). Returns whether ticks can be aimed at
 * the GVL holder. */
bool rp_gvl_holder_init(rb_postponed_job_handle_t job);

/* Whether rp_gvl_holder_init found the layout it needs. */
bool rp_gvl_holder_usable(void);

/* GVL held: the calling thread holds the GVL now (start of a profile). */
void rp_gvl_holder_start(void);
/* GVL held: no tick is aimed at any thread any more (end of a profile). */
void rp_gvl_holder_stop(void);

/* RESUMED thread event hook (GVL held, on `thread`): it holds the GVL. */
void rp_gvl_holder_resumed(VALUE thread);
/* SUSPENDED hook (on `thread`, as it releases the GVL): if it was the
 * holder, no thread holds the GVL now. */
void rp_gvl_holder_suspended(VALUE thread);
/* Any thread: no thread of the main Ractor holds the GVL (false when that
 * cannot be known: the layout did not hold). */
bool rp_gvl_holder_none(void);
/* EXITED thread event hook (on `thread`, without the GVL): the thread's
 * memory may be freed from now on, so it is never touched again. */
void rp_gvl_holder_exited(VALUE thread);
/* GC_ENTER event hook (GVL held): GC may free fibers, whose execution
 * contexts the worker may be about to write to; waits until it is not.
 * Also the first RESUMED of another Ractor's thread (gvl_gc.c), on 3.4,
 * whose GCs pass no GC_ENTER hook of the agent's. */
void rp_gvl_holder_gc_barrier(void);

/* Signal handler on the worker, or the worker's ticker loop; after
 * rb_postponed_job_trigger: sets the postponed-job interrupt on the GVL
 * holder's current execution context. Async-signal-safe, never waits. */
void rp_gvl_holder_interrupt(void);

/* The ticker, at a tick: rp_gvl_holder_interrupt, and notes where the
 * tick found the holder (its execution context and current frame) and
 * when — unless a tick before it did and no sampling job has run since. */
void rp_gvl_holder_tick(int64_t now_ns);

/* What the sampling job learns of the first tick since it last ran. */
typedef struct rp_tick_position {
    int pushed;      /* Ruby control frames this thread pushed since */
    int64_t tick_ns; /* CLOCK_MONOTONIC of that tick */
} rp_tick_position;

/* Sampling job (GVL held, on the thread the tick reached), once per run:
 * whether the first tick since the job last ran found this thread
 * holding the GVL, and then where it was (*pos). Frames pushed between a
 * tick and the job that serves it ran no safepoint: a C method that
 * called back into Ruby (a parser's hook, a compiler's Integer#-@) is
 * where that time went, not the callback (frame_capture.h); and a thread
 * that has held the GVL without a safepoint since a tick long ago ran
 * through it (a long C call), whatever the OS did just before the job. */
bool rp_gvl_holder_tick_found_me(rp_tick_position *pos);

/* Fork child, single-threaded: the parent's threads are gone. */
void rp_gvl_holder_forget(void);

#endif
