/*
 * agent/gvl_gc.h — time a thread spends off the GVL, waiting for it, or in GC.
 *
 * Owns: the thread event hooks (SUSPENDED / READY / RESUMED) and the GC
 * internal event hooks. At SUSPENDED the running time so far is charged to
 * the stack; at RESUMED, in wall mode, the time off the GVL becomes a
 * %GVL=blocked sample and the time waiting for it a %GVL=wait sample, both
 * on the stack at suspension (unchanged while off the GVL); in cpu mode the
 * CPU used off the GVL (C code that released it) is charged to that stack.
 * GC mark and sweep spans become %GC=mark / %GC=sweep samples on the stack
 * that entered GC, and are taken out of the thread's next regular sample.
 */
#ifndef RPERF_AGENT_GVL_GC_H
#define RPERF_AGENT_GVL_GC_H

#include "../common/profile.h"

/* GVL held, on the process's main thread (at boot, in a fork child, after
 * a failed exec): installs the hooks unless they are installed, and
 * forgets any GC span in progress. */
void rp_gvl_gc_start(rp_mode mode);

/* GVL held: removes the hooks (end of profiling). */
void rp_gvl_gc_stop(void);

#endif
