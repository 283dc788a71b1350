/*
 * agent/allocations/allocations.h — allocation sampling and the objects that stay
 * alive (RPERF_ALLOC, Rperf.start(alloc:)).
 *
 * Owns: the allocation hook (Ruby's NEWOBJ internal event), installed
 * only while a recording samples allocations; each recording's
 * countdown to its next sampled allocation (geometric gaps of mean its
 * rate N, so that a periodic allocation pattern cannot alias with it);
 * the classes of sampled objects, by name (no class is held), and the
 * keys (thread labels, class) their samples are folded under
 * (aggregator.h keeps the samples), both bounded; and the
 * followed objects: every sampled object, until a marking of the GC finds
 * it dead (gc_watch.h: no hook on the frees), with its allocation stack
 * and key per recording, re-keyed when GC.compact or auto-compaction
 * moves objects, at most RPERF_ALLOC_FOLLOW of them.
 *
 * Contexts: the hook runs on a thread of the main Ractor holding the GVL
 * (Ruby 4.0 calls it on every Ractor's threads: another's returns first),
 * inside an allocation (Ruby has disabled GC there); the check at the end
 * of a marking and the compaction callback inside GC: they touch C
 * memory only, never allocate a Ruby object, raise or call Ruby code, so
 * the program's objects and GC statistics stay as they are. Everything
 * else runs on a Ruby thread holding the GVL. Other Ractors' allocations
 * are not sampled (README): Ruby 3.4 calls object hooks for the Ractor
 * that installed them only, and on 4.0 the hook leaves them at once.
 */
#ifndef RPERF_AGENT_ALLOCATIONS_H
#define RPERF_AGENT_ALLOCATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/recording.h"
#include "../base/ruby_api.h"

/* Main thread at start: the object GC updates at compaction (the
 * followed objects; it marks nothing: the agent keeps no object alive)
 * and the check at the end of each marking; `follow_max` caps the
 * followed objects (0: none followed; also where gc_watch.h cannot read
 * mark bits); with `lines`, allocation stacks record the line of each
 * frame. */
int rp_allocs_init(long follow_max, bool lines, bool windows);

/* RPERF_ALLOC=window (`windows` above): the hook is installed only in
 * short windows, which the sampling job (GVL held) opens and closes
 * through rp_allocs_window_tick. rp_allocs_scale says how many
 * allocations each sampled allocation's weight must be multiplied by for
 * recording `id` (its allocations since it or its part began over those
 * in its windows; 1 outside window mode); rp_allocs_restart_count starts
 * that count afresh (a new part); rp_allocs_window_lengths gives the
 * window and its spacing (0 outside window mode), for the profile. */
void rp_allocs_window_tick(int64_t now_ns);
double rp_allocs_scale(rp_rec_id id);
void rp_allocs_restart_count(rp_rec_id id);
void rp_allocs_window_lengths(int64_t *window_ms, int64_t *every_ms);

/* GVL held, as recording `id` opens: its countdown starts afresh and the
 * objects it followed before are forgotten (its tables begin empty). */
void rp_allocs_begin(rp_rec_id id);

/* GVL held, as recording `id` closes for good: forgets what it followed. */
void rp_allocs_forget(rp_rec_id id);

/* GVL held: installs the hooks when some open recording samples
 * allocations, removes them when none does. */
void rp_allocs_update(void);

/* GVL held: while suppressed, allocations are not sampled (the agent's own
 * Ruby calls: resolving frame and class names when writing). Nests. */
void rp_allocs_suppress(void);
void rp_allocs_unsuppress(void);

/* A table key of allocation samples: the thread's label set (labels.h)
 * and the object's class. */
void rp_allocs_key_split(uint32_t key, uint32_t *label_set, uint32_t *class_id);

/* The name of class `class_id`, e.g. "String", or "(hidden String)" /
 * "(internal)" for objects Ruby gives no class; copied into `buf`. Calls
 * no Ruby code. */
const char *rp_allocs_class_name(uint32_t class_id, char *buf, size_t size);

/* One object of a recording still alive: its allocation sample's stack
 * and key in the recording's allocation tables, its thread, its size. */
typedef struct rp_retained {
    uint32_t stack, key, thread_seq;
    int64_t bytes;
} rp_retained;

/* GVL held, outside GC: the objects recording `id` follows — all alive,
 * the dead having left at the end of the marking that found them — in a
 * malloc'd array (*out, NULL when there are none or no memory). Returns
 * the count. Calls no Ruby code. */
size_t rp_allocs_retained(rp_rec_id id, rp_retained **out);

/* Sampled objects recording `id` could not follow (the cap, no memory). */
int64_t rp_allocs_unfollowed(rp_rec_id id);

/* The followed objects now and at most, and the memory their table takes
 * (bytes; it grows with the most followed at once, and stays). */
void rp_allocs_footprint(size_t *followed, size_t *peak, size_t *bytes);

/* GVL held, in a label compaction (labels.h): the keys' label sets move
 * to the new store. */
void rp_allocs_carry_labels(void);

/* GVL held, between rp_aggregator_hold and release, in a compaction
 * (compaction.h): each recording's allocation tables let go of the stacks
 * no followed object and no sample of theirs holds any more — the stacks
 * of objects that have died, and with them the names of their frames. */
void rp_allocs_let_go_of_stacks(void);

/* Fork child: nothing followed (the parent's objects are not this
 * process's allocations), countdowns afresh. */
void rp_allocs_after_fork(void);

#endif
