/*
 * agent/aggregator.h — the agent's frame, stack and sample tables.
 *
 * Owns: folding captured samples into compact tables: (frame VALUE, line)
 * → frame id, interned stacks of frame ids, and (stack, thread, VM state) → summed
 * weight (or one entry per sample in raw mode). Folding runs on the worker
 * thread without the GVL; the tables' VALUEs are kept alive and pinned by
 * a GC mark function, which takes the same lock as folding.
 */
#ifndef RPERF_AGENT_AGGREGATOR_H
#define RPERF_AGENT_AGGREGATOR_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/sample_table.h"
#include "../common/stack_table.h"
#include "ruby_api.h"
#include "sample_buf.h"

typedef struct rp_aggregate {
    VALUE *frames;     /* frame id → frame VALUE */
    uint32_t *lines;   /* frame id → line (0: lines not recorded) */
    size_t frame_count;
    rp_stack_table stacks;
    rp_sample_table samples; /* label_set field holds the rp_vm_state */
    size_t dropped;          /* samples lost for lack of memory while folding */
} rp_aggregate;

/* Main thread at start (GVL held): prepares empty tables and registers the
 * GC mark object. Returns 0 or -1. */
int rp_aggregator_init(bool aggregate);

/* Worker thread, or the main thread once the worker has stopped: folds
 * `buf` into the tables and empties it. */
void rp_aggregator_fold(rp_sample_buf *buf);

/* After the worker has stopped: the tables, for the writer to read. */
const rp_aggregate *rp_aggregator_tables(void);

/* Drops all data (after writing, and in a fork child). */
void rp_aggregator_clear(void);

/* fork(): the forking thread (GVL held) takes the lock before fork so that
 * the worker is never in the middle of a fold — and of malloc — when the
 * child is created (an allocator without fork handling, ASan's for one,
 * would leave the child blocked); the parent releases it, the child
 * re-initialises it. */
void rp_aggregator_before_fork(void);
void rp_aggregator_after_fork_parent(void);
void rp_aggregator_after_fork(void);

#endif
