/*
 * agent/gvl_gc.h — time a thread spends off the GVL, waiting for it, or in GC.
 *
 * Owns: the thread event hooks (SUSPENDED / READY / RESUMED) and the GC
 * internal event hooks. The stack of a thread does not change while it is
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

#include "../profile/profile.h"

/* GVL held, on the process's main thread (at boot, in a fork child, after
 * a failed exec): installs the hooks unless they are installed, and
 * forgets any GC span in progress. */
void rp_gvl_gc_start(rp_mode mode);

/* GVL held: removes the hooks (end of profiling). */
void rp_gvl_gc_stop(void);

#endif
