/*
 * agent/gc_watch.h — what the agent learns from Ruby's GC about the
 * program's objects, without holding any of them.
 *
 * Owns: the one hook on Ruby's GC_START, GC_END_MARK and GC_EXIT events
 * that the agent keeps for as long as it runs (gvl_gc.c's hooks, which
 * time GC, come and go with recordings), and what it tells:
 * - epochs: counts of GC starts and marking ends, all GCs and major ones.
 *   An object the agent saw alive outside GC stays at its address at least
 *   until the epoch changes (frame_capture.h builds its cache on this).
 * - the moment after a marking, at the end of the GC step that finished
 *   it (GC_EXIT): every object the marking found dead is then either
 *   freed or awaiting the lazy sweep, and none of their slots has been
 *   given to a new object yet, so rb_objspace_garbage_object_p tells the
 *   dead from the living for certain. Watchers registered for it are
 *   called there, told whether the GC was a major one (a minor GC frees
 *   no old object). This is how the agent follows objects without a
 *   FREEOBJ hook and without keeping them alive.
 *
 * Context: everything runs on a Ruby thread holding the GVL; watchers run
 * inside GC, where they may read objects and C memory but must not
 * allocate a Ruby object, raise or call Ruby code.
 */
#ifndef RPERF_AGENT_GC_WATCH_H
#define RPERF_AGENT_GC_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "ruby_api.h"

/* Main thread at start (GVL held): installs the hook (once). */
void rp_gc_watch_init(void);

/* The epochs now: every GC start and marking end counts one; `major`
 * only those of major GCs. A hook installed in the middle of a GC takes
 * it for a major one. */
uint64_t rp_gc_watch_epoch(void);
uint64_t rp_gc_watch_major_epoch(void);

/* Inside GC, at the end of the step that finished a marking. */
typedef void rp_gc_watcher(bool major);

/* Main thread at start (GVL held): `fn` is called after every marking
 * from now on. At most 4 watchers. */
void rp_gc_watch_after_marking(rp_gc_watcher *fn);

/* Whether `obj` (an object the caller saw alive before this GC began,
 * and holds no reference to) was found dead by the marking just finished.
 * Only inside a watcher. */
bool rp_gc_watch_is_dead(VALUE obj);

#endif
