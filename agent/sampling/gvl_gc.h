/*
 * agent/sampling/gvl_gc.h — time a thread spends off the GVL, waiting for it, or in GC.
 *
 * Owns: the thread event hooks (SUSPENDED / READY / RESUMED) and the GC
 * internal event hooks, serving every accepting recording (recording.h)
 * with one stack capture each time. The stack of a thread does not change while it is
 * off the GVL, so at RESUMED everything since its last sample is charged
 * to that stack with one capture: in cpu mode the CPU it used (some of it
 * in C code that released the GVL); in wall mode the running time before
 * the release, the time off the GVL (%GVL=blocked) and the time waiting to
 * get it back (%GVL=wait). GC mark and sweep spans (%GC=mark / %GC=sweep)
 * are charged to the stack that ran GC and taken out of the thread's next
 * regular sample. Time too short to be worth a stack capture of its own
 * (half a sampling period) is kept pending on the thread until more comes.
 */
#ifndef RPERF_AGENT_GVL_GC_H
#define RPERF_AGENT_GVL_GC_H

#include "../../profile/profile.h"

/* GVL held: installs the hooks the open recordings need (recording.h):
 * GC hooks, thread hooks for the events their modes need, and once a
 * request was recorded the fiber switch and thread end hooks of spans.h;
 * removes them all when none is open. Called whenever a recording opens
 * or closes, and at the first request. */
void rp_gvl_gc_update(void);

/* What the requests (spans.h) ask of the GVL hooks once the first one
 * began: the thread events that measure a request's time off the GVL in
 * every mode, with `blocked` told of each stretch a thread was blocked
 * (RESUMED hook), and `hook` turned on and off with the GVL hooks. */
struct rp_thread;
typedef struct rp_gvl_gc_requests {
    void (*hook)(bool on);
    void (*blocked)(const struct rp_thread *t, int64_t ns);
} rp_gvl_gc_requests;

/* GVL held: from now on the GVL hooks serve `r` too (and are updated). */
void rp_gvl_gc_follow_requests(const rp_gvl_gc_requests *r);

/* GVL held, on the process's main thread (in a fork child, after a failed
 * exec): the hooks installed afresh, any GC span in progress forgotten. */
void rp_gvl_gc_restart(void);

/* GVL held: removes the hooks. */
void rp_gvl_gc_stop(void);

#endif
