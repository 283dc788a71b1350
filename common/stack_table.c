/*
 * common/stack_table.c — interning of call stacks. See stack_table.h.
 */
#include "stack_table.h"

#include <string.h>

#include "hash.h"
#include "vec.h"

void rp_stack_table_init(rp_stack_table *t)
{
    memset(t, 0, sizeof(*t));
    rp_idxset_init(&t->index);
}

void rp_stack_table_free(rp_stack_table *t)
{
    free(t->pool);
    free(t->stacks);
    rp_idxset_free(&t->index);
    rp_stack_table_init(t);
}

int rp_stack_table_reserve(rp_stack_table *t, size_t stacks, size_t frames)
{
    return RP_VEC_RESERVE(t->stacks, t->stacks_cap, t->count + stacks) != 0 ||
                   RP_VEC_RESERVE(t->pool, t->pool_cap, t->pool_len + frames) != 0 ||
                   rp_idxset_reserve(&t->index, t->count + stacks) != 0
               ? -1
               : 0;
}

void rp_stack_table_empty(rp_stack_table *t)
{
    t->pool_len = 0;
    t->count = 0;
    rp_idxset_empty(&t->index);
}

struct stack_key {
    const rp_stack_table *t;
    const uint32_t *frames;
    uint32_t depth;
};

static bool stack_equals(const void *ctx, uint32_t index)
{
    const struct stack_key *key = ctx;
    const rp_stack *s = &key->t->stacks[index];
    return s->depth == key->depth &&
           (key->depth == 0 ||
            memcmp(key->t->pool + s->offset, key->frames, key->depth * sizeof(uint32_t)) == 0);
}

uint32_t rp_stack_table_find(const rp_stack_table *t, const uint32_t *frames, uint32_t depth)
{
    struct stack_key key = {t, frames, depth};
    return rp_idxset_find(&t->index, rp_hash_u32s(frames, depth), stack_equals, &key);
}

uint32_t rp_stack_table_intern(rp_stack_table *t, const uint32_t *frames, uint32_t depth)
{
    uint64_t hash = rp_hash_u32s(frames, depth);
    struct stack_key key = {t, frames, depth};
    uint32_t found = rp_idxset_find(&t->index, hash, stack_equals, &key);
    if (found != RP_IDX_NONE)
        return found;
    if (t->count >= RP_IDX_NONE - 1 ||
        RP_VEC_RESERVE(t->stacks, t->stacks_cap, t->count + 1) != 0 ||
        RP_VEC_RESERVE(t->pool, t->pool_cap, t->pool_len + depth) != 0)
        return RP_IDX_NONE;
    uint32_t id = (uint32_t)t->count;
    if (rp_idxset_insert(&t->index, hash, id) != 0)
        return RP_IDX_NONE;
    if (depth > 0)
        memcpy(t->pool + t->pool_len, frames, depth * sizeof(uint32_t));
    t->stacks[id] = (rp_stack){t->pool_len, depth};
    t->pool_len += depth;
    t->count++;
    return id;
}

const uint32_t *rp_stack_table_get(const rp_stack_table *t, uint32_t id, uint32_t *depth)
{
    *depth = t->stacks[id].depth;
    /* An empty stack may exist before anything was put in the pool. */
    return *depth ? t->pool + t->stacks[id].offset : NULL;
}
