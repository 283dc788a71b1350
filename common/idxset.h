/*
 * common/idxset.h — open-addressing hash index over an external array.
 *
 * Owns: the mapping "hash + equality → index into the caller's array". The
 * caller keeps its records (strings, frames, stacks, samples) in its own
 * dense array; the idxset only stores (hash, index) pairs, so one
 * implementation serves every interning table in the agent and the
 * analyzer. Not thread-safe: each table has one owner at a time.
 */
#ifndef RPERF_COMMON_IDXSET_H
#define RPERF_COMMON_IDXSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_IDX_NONE UINT32_MAX

typedef struct rp_idxset_slot {
    uint32_t hash32; /* upper half of the 64-bit hash, to skip most compares */
    uint32_t index;  /* RP_IDX_NONE when the slot is empty */
} rp_idxset_slot;

typedef struct rp_idxset {
    rp_idxset_slot *slots;
    size_t capacity; /* power of two, or 0 before the first insert */
    size_t count;
} rp_idxset;

/* Tells whether the record at `index` equals the key being looked up. */
typedef bool (*rp_idxset_eq_fn)(const void *ctx, uint32_t index);

void rp_idxset_init(rp_idxset *set);
void rp_idxset_free(rp_idxset *set);
/* No entry any more; the slots stay allocated for the entries to come. */
void rp_idxset_empty(rp_idxset *set);

/* Sizes the table for `expected` entries without further growth. */
int rp_idxset_reserve(rp_idxset *set, size_t expected);

/* Returns the index whose record matches (per `eq`), or RP_IDX_NONE. */
uint32_t rp_idxset_find(const rp_idxset *set, uint64_t hash, rp_idxset_eq_fn eq, const void *ctx);

/* Adds `index` under `hash`; the caller has checked it is not present.
 * Returns 0, or -1 when memory is exhausted (the set is unchanged). */
int rp_idxset_insert(rp_idxset *set, uint64_t hash, uint32_t index);

#endif
