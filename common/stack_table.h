/*
 * common/stack_table.h — interning of call stacks.
 *
 * Owns: every distinct stack (a sequence of frame ids, leaf first) stored
 * once in a shared pool and named by a dense uint32 id. The agent's worker
 * thread interns stacks of its VALUE frame ids; the analyzer interns stacks
 * of its (path, label) frame ids.
 */
#ifndef RPERF_COMMON_STACK_TABLE_H
#define RPERF_COMMON_STACK_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "idxset.h"

typedef struct rp_stack {
    size_t offset; /* into pool */
    uint32_t depth;
} rp_stack;

typedef struct rp_stack_table {
    uint32_t *pool;
    size_t pool_len, pool_cap;
    rp_stack *stacks;
    size_t count, stacks_cap;
    rp_idxset index;
} rp_stack_table;

void rp_stack_table_init(rp_stack_table *t);
void rp_stack_table_free(rp_stack_table *t);
/* Room for `stacks` more stacks of `frames` frames in all, taken at once
 * (a copy of a table of known size grows no more). Returns 0 or -1. */
int rp_stack_table_reserve(rp_stack_table *t, size_t stacks, size_t frames);
/* No stack any more; the memory stays for the stacks to come (a table
 * refilled to the same size again and again grows no more). */
void rp_stack_table_empty(rp_stack_table *t);

/* Returns the id of the stack, adding it when new; RP_IDX_NONE when memory
 * is exhausted. */
uint32_t rp_stack_table_intern(rp_stack_table *t, const uint32_t *frames, uint32_t depth);

/* Returns the id of the stack, or RP_IDX_NONE when the table lacks it. */
uint32_t rp_stack_table_find(const rp_stack_table *t, const uint32_t *frames, uint32_t depth);

/* Returns the frames of stack `id` (leaf first) and its depth. */
const uint32_t *rp_stack_table_get(const rp_stack_table *t, uint32_t id, uint32_t *depth);

#endif
