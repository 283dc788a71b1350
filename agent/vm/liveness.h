/*
 * agent/vm/liveness.h — how long an object the agent saw alive keeps its
 * address, and caches keyed by such addresses.
 *
 * Owns: the promise the agent's caches rest on. Ruby frees an object only
 * when it sweeps, after a marking that did not reach it. An object seen
 * alive while no marking is in progress was reached by the last marking
 * (it is reachable now, and nothing unreachable becomes reachable again)
 * or allocated since, so it lives at least until the next marking begins
 * — and its address holds it until then. Every GC start counts one in
 * rb_gc_count(), so what was seen holds while that count does. An old
 * object is freed by a major GC only (which is also the only GC that
 * moves objects), so it holds while the count of major GCs does, which
 * changes less often. An object seen while a marking is in progress (Ruby
 * marks a major GC incrementally, between stretches of the program) has
 * no such promise — it may drop out of reach before the marking finishes
 * and be freed by the sweep that follows — but nothing is freed before
 * that sweep: it holds while the same marking lasts. Nothing is promised
 * inside GC. Both counts are Ruby's own, whichever Ractor's thread runs
 * the GC.
 *
 * A tag says which of these promises holds for what was seen: made when
 * it is seen (rp_live_tag), checked when it is used (rp_live_tag_holds).
 * The caches map an object's address to an id (a frame's name, a class's
 * id) for as long as its tag holds: direct-mapped, a collision costing a
 * look-up.
 *
 * Context: a Ruby thread holding the GVL, inside an allocation too (where
 * Ruby forbids allocating): allocates nothing, raises nothing.
 */
#ifndef RPERF_AGENT_LIVENESS_H
#define RPERF_AGENT_LIVENESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/ruby_api.h"

/* Main thread at start (GVL held), after gc_watch.h's: makes the symbols
 * asked of Ruby later inside allocations. */
void rp_liveness_init(void);

/* The tags something seen now would get. Whether a marking is in
 * progress is asked of Ruby only when a tag needs it: once a capture at
 * most, when the caller keeps one rp_live_now for it. */
typedef struct rp_live_now {
    uint64_t young, old, in_marking;
    int marking; /* -1: not asked yet */
} rp_live_now;

rp_live_now rp_live_now_get(void);

/* Whether what was tagged `tag` still holds its address now. */
bool rp_live_tag_holds(uint64_t tag, rp_live_now *now);

/* The tag of an object seen alive now (promoted: `old`) into *tag; false
 * when there is none to give (inside GC, where what is alive is being
 * decided). */
bool rp_live_tag(rp_live_now *now, bool old, uint64_t *tag);

/* A direct-mapped cache: SLOTS entries, a power of two. */
typedef struct rp_live_entry {
    VALUE obj;
    uint64_t tag;
    uint32_t id;
} rp_live_entry;

/* The id kept for `obj` into *id, if its tag holds. */
bool rp_live_cache_find(rp_live_entry *slots, size_t count, VALUE obj, rp_live_now *now, uint32_t *id);

/* Keeps `id` for `obj`, seen alive now (unless inside GC). */
void rp_live_cache_keep(rp_live_entry *slots, size_t count, VALUE obj, rp_live_now *now, uint32_t id);

#endif
