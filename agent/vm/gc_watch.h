/*
 * agent/vm/gc_watch.h — what the agent learns from Ruby's GC about the
 * program's objects, without holding any of them.
 *
 * Owns: the one hook on Ruby's GC_END_MARK event that the agent keeps for
 * as long as it runs (gvl_gc.c's hooks, which time GC, come and go with
 * recordings), and what it tells: at the end of each marking, before
 * anything is swept or moved, an object the marking did not reach is
 * about to be freed, and its mark bit says so (ruby_layout.h). Watchers
 * registered for it are called there, told whether the GC was a major one
 * (a minor GC frees no old object). This is how the agent follows objects
 * without a FREEOBJ hook and without keeping them alive — the agent's own
 * weak references. Whether the mark bits are where ruby_layout.h says is
 * checked at the first marking (a live object's bit set, one of objects
 * made to die unset, GC::INTERNAL_CONSTANTS as expected); when it does not
 * hold, watchers are told so once and never called again. Ruby calls the
 * hook only when a thread of the main Ractor runs the GC (hooks are per
 * Ractor): a marking it did not see — counted by rb_gc_count — is said to
 * the watchers at the next one it sees, as anything may have died then.
 *
 * Context: everything runs on a Ruby thread holding the GVL; watchers run
 * inside GC, where they may read objects and C memory but must not
 * allocate a Ruby object, raise or call Ruby code.
 */
#ifndef RPERF_AGENT_GC_WATCH_H
#define RPERF_AGENT_GC_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/ruby_api.h"

/* Main thread at start (GVL held): installs the hook and prepares the
 * layout check (once). */
void rp_gc_watch_init(void);

/* What a watcher can learn at the end of a marking. */
typedef enum rp_gc_marks {
    RP_MARKS_READABLE,   /* rp_gc_watch_marked tells the living from the dead */
    RP_MARKS_MISSED,     /* as readable, but a GC ran unseen since the last call */
    RP_MARKS_UNREADABLE, /* not in this Ruby: said once, never called again */
} rp_gc_marks;

/* Inside GC, at the end of a marking. */
typedef void rp_gc_watcher(bool major, rp_gc_marks marks);

/* Main thread at start (GVL held): `fn` is called at the end of every
 * marking from now on. At most 4 watchers. */
void rp_gc_watch_at_marking_end(rp_gc_watcher *fn);

/* Inside a watcher told RP_MARKS_MISSED: whether a major GC was among
 * those unseen (else only minor ones, which free no old object). */
bool rp_gc_watch_missed_major(void);

/* GVL held, outside GC: whether a GC ran unseen since the last marking
 * end the hook saw (another Ractor's thread ran it, on Ruby 3.4): until
 * the next marking end tells the watchers (RP_MARKS_MISSED), any object
 * seen alive before may have been freed. */
bool rp_gc_watch_missed_now(void);

/* Ruby's count of major GCs now (GC.stat's major_gc_count): outside GC
 * and inside an allocation too (its symbol is made at init). */
size_t rp_gc_watch_majors(void);

/* Whether mark bits can be read (not known to fail). */
bool rp_gc_watch_marks_known(void);

/* Whether the marking just finished reached heap object `obj` (which the
 * caller saw alive before this GC began, and holds no reference to): if
 * not, the GC frees it. Only inside a watcher told the marks are
 * readable (or missed: then for objects seen alive since the last call). */
bool rp_gc_watch_marked(VALUE obj);

#endif
