/*
 * agent/vm/ractors.h — the time of Ractors other than the main one.
 *
 * Owns: which Ractors ran, and for each the time its threads held its
 * GVL, per recording (CPU time in cpu mode, wall time in wall mode), and
 * the objects it allocated (Ruby 4.0, whose allocation hook runs on every
 * Ractor), in one row per Ractor of the profile: a frame `Ractor #<id> <name>` under
 * the file "<Ractor>", a thread of its own (writer.c). Their stacks are not taken: Ruby 3.4 runs the
 * sampling job on the main Ractor's threads only, and nothing in its
 * public API reads another Ractor's stack safely from there.
 *
 * A stretch starts when a Ractor's thread is resumed on a native thread
 * (RESUMED) and ends when it leaves it (SUSPENDED, EXITED) or another
 * Ruby thread is resumed there; the native thread's CPU clock over the
 * stretch is the Ractor's. A profile being written counts the stretches
 * running then so far, reading their native threads' CPU clocks.
 *
 * Contexts: rp_ractors_resumed and rp_ractors_leave run in thread event
 * hooks, on any native thread of any Ractor, without the main Ractor's
 * GVL: they read the thread's structures (Ruby 3.4's layout, checked at
 * start as gvl_holder.c does; without it Ractors are numbered in the
 * order seen, unnamed), touch only this native thread's stretch (under
 * its spin lock, held for a clock read) and the atomic table. The rest
 * runs on the main Ractor with its GVL.
 */
#ifndef RPERF_AGENT_RACTORS_H
#define RPERF_AGENT_RACTORS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../profile/schema.h"
#include "../base/recording.h"
#include "../base/ruby_api.h"

#define RP_RACTORS_MAX 64
#define RP_RACTOR_NAME_MAX 64

/* Main thread at start, GVL held: checks the layout. */
void rp_ractors_init(void);

/* Any context: 1 when `thread` belongs to the main Ractor, 0 when to
 * another, -1 when this Ruby's layout is not known (ask rb_thread_main()
 * then, which is wrong where a thread starts on a native thread that ran
 * another Ractor's thread before). */
int rp_ractors_is_main(VALUE thread);

/* RESUMED of a thread of another Ractor, on the native thread that runs it
 * (before that thread runs any Ruby code: rp_ractors_others_ran is true
 * on it from then on). */
void rp_ractors_resumed(VALUE thread);

/* Any context: whether a thread of a Ractor other than the main one has
 * run in this process. Cheap: an object hook asks it at every allocation. */
extern _Atomic bool rp_ractors_others_ran;

/* A Ruby thread holding its Ractor's GVL: whether it is the main Ractor's. */
bool rp_ractors_current_is_main(void);

/* SUSPENDED or EXITED of any thread, or RESUMED of a main-Ractor thread:
 * the stretch running on this native thread, if any, ends. */
void rp_ractors_leave(void);

/* GVL held: the running stretches' time so far counts now, for the
 * recordings accepting now (before one stops accepting: a Ractor's thread
 * still running then is counted up to there). */
void rp_ractors_settle(void);

/* GVL held: the time every Ractor has for recording `id` so far, running
 * stretches included (0 for unused rows), into out[RP_RACTORS_MAX]. */
void rp_ractors_totals(rp_rec_id id, int64_t *out);

/* NEWOBJ hook on a thread of another Ractor (Ruby 4.0 calls it for every
 * Ractor, under its VM lock): one allocation more for that Ractor's row,
 * for every accepting recording that samples allocations. Counted, not
 * sampled, and not followed: its stack and its class are read through
 * tables the main Ractor's GVL guards. */
void rp_ractors_count_allocation(void);

/* GVL held: the allocations every Ractor has for recording `id` so far
 * (0 for unused rows), into out[RP_RACTORS_MAX]. */
void rp_ractors_alloc_totals(rp_rec_id id, int64_t *out);

/* Row `i`'s frame label ("Ractor #2 worker"), or NULL when unused. */
const char *rp_ractors_label(size_t i);

/* Fork child: the parent's Ractors are not this process's. */
void rp_ractors_after_fork(void);

#endif
