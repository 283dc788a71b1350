/*
 * agent/ractors.h — the time of Ractors other than the main one.
 *
 * Owns: which Ractors ran, and for each the time its threads held its
 * GVL, per recording (CPU time in cpu mode, wall time in wall mode), in
 * one row per Ractor of the profile: a frame `Ractor #<id> <name>` under
 * the file "<Ractor>". Their stacks are not taken: Ruby 3.4 runs the
 * sampling job on the main Ractor's threads only, and nothing in its
 * public API reads another Ractor's stack safely from there.
 *
 * A stretch starts when a Ractor's thread is resumed on a native thread
 * (RESUMED) and ends when it leaves it (SUSPENDED, EXITED) or another
 * Ruby thread is resumed there; the native thread's CPU clock over the
 * stretch is the Ractor's. A stretch still running when a profile is
 * written counts in the next one.
 *
 * Contexts: rp_ractors_resumed and rp_ractors_leave run in thread event
 * hooks, on any native thread of any Ractor, without the main Ractor's
 * GVL: they read the thread's structures (Ruby 3.4's layout, checked at
 * start as gvl_holder.c does; without it Ractors are numbered in the
 * order seen, unnamed), touch only this native thread's stretch and the
 * atomic table. The rest runs on the main Ractor with its GVL.
 */
#ifndef RPERF_AGENT_RACTORS_H
#define RPERF_AGENT_RACTORS_H

#include <stddef.h>
#include <stdint.h>

#include "../profile/schema.h"
#include "recording.h"
#include "ruby_api.h"

#define RP_RACTORS_MAX 64
#define RP_RACTOR_NAME_MAX 64

/* Main thread at start, GVL held: checks the layout. */
void rp_ractors_init(void);

/* RESUMED of a thread of another Ractor, on the native thread that runs it. */
void rp_ractors_resumed(VALUE thread);

/* SUSPENDED or EXITED of any thread, or RESUMED of a main-Ractor thread:
 * the stretch running on this native thread, if any, ends. */
void rp_ractors_leave(void);

/* The time every Ractor has for recording `id` so far (0 for unused
 * rows), into out[RP_RACTORS_MAX]. */
void rp_ractors_totals(rp_rec_id id, int64_t *out);

/* Row `i`'s frame label ("Ractor #2 worker"), or NULL when unused. */
const char *rp_ractors_label(size_t i);

/* Fork child: the parent's Ractors are not this process's. */
void rp_ractors_after_fork(void);

#endif
