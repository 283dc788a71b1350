/*
 * common/idxset.c — open-addressing (linear probing) hash index.
 * See idxset.h for what it owns. The load factor stays below 3/4; growth
 * re-inserts the stored hashes, so records are never re-hashed.
 */
#include "idxset.h"

#include <stdlib.h>
#include "../common/vec.h"

static uint32_t hash32_of(uint64_t hash) { return (uint32_t)(hash >> 32); }

void rp_idxset_init(rp_idxset *set)
{
    set->slots = NULL;
    set->capacity = 0;
    set->count = 0;
}

void rp_idxset_free(rp_idxset *set)
{
    free(set->slots);
    rp_idxset_init(set);
}

void rp_idxset_empty(rp_idxset *set)
{
    for (size_t i = 0; i < set->capacity; i++)
        set->slots[i].index = RP_IDX_NONE;
    set->count = 0;
}

static rp_idxset_slot *alloc_slots(size_t capacity)
{
    rp_idxset_slot *slots = rp_alloc_array(capacity, sizeof(*slots));
    if (!slots)
        return NULL;
    for (size_t i = 0; i < capacity; i++)
        slots[i].index = RP_IDX_NONE;
    return slots;
}

/* The slot position is taken from the low bits of the 64-bit hash, which the
 * stored hash32 does not keep; so growth derives a position from hash32
 * instead. Both lookups and inserts use this same function. */
static size_t home_slot(uint32_t hash32, size_t capacity)
{
    return (size_t)(hash32 * 0x9e3779b1u) & (capacity - 1);
}

static void place(rp_idxset_slot *slots, size_t capacity, uint32_t hash32, uint32_t index)
{
    size_t i = home_slot(hash32, capacity);
    while (slots[i].index != RP_IDX_NONE)
        i = (i + 1) & (capacity - 1);
    slots[i].hash32 = hash32;
    slots[i].index = index;
}

static int grow_to(rp_idxset *set, size_t capacity)
{
    rp_idxset_slot *slots = alloc_slots(capacity);
    if (!slots)
        return -1;
    for (size_t i = 0; i < set->capacity; i++)
        if (set->slots[i].index != RP_IDX_NONE)
            place(slots, capacity, set->slots[i].hash32, set->slots[i].index);
    free(set->slots);
    set->slots = slots;
    set->capacity = capacity;
    return 0;
}

int rp_idxset_reserve(rp_idxset *set, size_t expected)
{
    size_t capacity = set->capacity ? set->capacity : 16;
    while (capacity / 4 * 3 < expected + 1)
        capacity *= 2;
    return capacity == set->capacity ? 0 : grow_to(set, capacity);
}

uint32_t rp_idxset_find(const rp_idxset *set, uint64_t hash, rp_idxset_eq_fn eq, const void *ctx)
{
    if (set->capacity == 0)
        return RP_IDX_NONE;
    uint32_t h32 = hash32_of(hash);
    size_t i = home_slot(h32, set->capacity);
    for (;;) {
        const rp_idxset_slot *slot = &set->slots[i];
        if (slot->index == RP_IDX_NONE)
            return RP_IDX_NONE;
        if (slot->hash32 == h32 && eq(ctx, slot->index))
            return slot->index;
        i = (i + 1) & (set->capacity - 1);
    }
}

int rp_idxset_insert(rp_idxset *set, uint64_t hash, uint32_t index)
{
    if (rp_idxset_reserve(set, set->count + 1) != 0)
        return -1;
    place(set->slots, set->capacity, hash32_of(hash), index);
    set->count++;
    return 0;
}
