/*
 * agent/sampling/aggregator.h — the agent's frame, stack and sample tables.
 *
 * Owns: folding captured samples into compact tables, one set per
 * recording (recording.h): (frame name, line) → frame id, interned stacks
 * of frame ids, and (stack, thread, VM state) → summed weight (or one
 * entry per sample in raw mode). Folding runs on the worker thread
 * without the GVL. The tables hold frame names (frame_names.h), no Ruby
 * object: nothing of the program is kept alive by them.
 */
#ifndef RPERF_AGENT_AGGREGATOR_H
#define RPERF_AGENT_AGGREGATOR_H

#include <stdbool.h>
#include <stddef.h>

#include "../../common/sample_table.h"
#include "../../common/stack_table.h"
#include "../base/recording.h"
#include "../base/ruby_api.h"
#include "frame_names.h"
#include "sample_buf.h"

typedef struct rp_aggregate {
    uint32_t *frames;  /* frame id → frame name id (frame_names.h) */
    uint32_t *lines;   /* frame id → line (0: lines not recorded) */
    size_t frame_count;
    rp_stack_table stacks;
    rp_sample_table samples; /* label_set field: rp_sample_key() */
    size_t dropped;          /* samples lost for lack of memory while folding */
    size_t capped;           /* samples put on the truncated stack (stack cap) */
    int64_t capped_weight;
} rp_aggregate;

/* The stack that samples get once the table holds the configured number
 * of distinct stacks (RPERF_MAX_STACKS) is one frame of
 * rp_frame_capture_capped()'s name (RP_CAPPED_FRAME_NAME). */

/* What a table entry's label_set field holds: the thread's label set
 * (labels.h) and the VM state, in one key. */
static inline uint32_t rp_sample_key(uint32_t label_set, rp_vm_state state)
{
    return label_set * RP_VM_STATE_COUNT + (uint32_t)state;
}

static inline void rp_sample_key_split(uint32_t key, uint32_t *label_set, rp_vm_state *state)
{
    *label_set = key / RP_VM_STATE_COUNT;
    *state = (rp_vm_state)(key % RP_VM_STATE_COUNT);
}

/* GVL held, as recording `id` opens (no sample of it buffered): its tables
 * empty, aggregating or raw. Beyond `max_stacks` distinct stacks, a sample
 * whose stack is new goes to the capped stack under its own thread and
 * labels, and no new frame is kept either:
 * memory stops growing while every sample still counts. */
void rp_aggregator_begin(rp_rec_id id, bool aggregate, size_t max_stacks);

/* GVL held, at start: `filled` is called once a recording's stack table
 * holds seven eighths of its bound (RPERF_MAX_STACKS), once until its
 * tables are emptied, so that a part can be taken before any sample goes
 * to the capped stack (control/parts.c). It returns whether a part that
 * empties them was asked for: until it is taken, the table may hold as
 * much again (at least two buffers of samples more). It runs on the
 * thread folding — the worker, or a Ruby thread holding the GVL — with
 * the tables' lock held: it may only ask (async-signal-safe calls, no
 * Ruby, no lock). */
void rp_aggregator_set_on_filled(bool (*filled)(rp_rec_id id));

/* Worker thread, or the main thread once the worker has stopped: folds
 * `buf` into the tables and empties it. */
void rp_aggregator_fold(rp_sample_buf *buf);

/* After the worker has stopped, or between hold and release: recording
 * `id`'s tables, for the writer to read. */
const rp_aggregate *rp_aggregator_tables(rp_rec_id id);

/* GVL held, while the worker runs (Rperf.snapshot, start, stop): folds
 * everything buffered so far and keeps the worker from folding until
 * rp_aggregator_release, so the tables can be read. The worker, the only
 * one to wait, never needs the GVL, so this cannot deadlock; nothing
 * between the two calls may raise or release the GVL. */
void rp_aggregator_hold(void);
void rp_aggregator_release(void);

/* GVL held (allocations.c's allocation hook): folds one sampled
 * allocation of recording `id` into its allocation tables, which only the
 * GVL holder touches: `frames` (and `lines`, or NULL) leaf first, `key`
 * allocations.c's (labels and class). Returns its stack id, or
 * RP_IDX_NONE when out of memory (counted as dropped). No Ruby call. */
uint32_t rp_aggregator_add_allocation(rp_rec_id id, const uint32_t *frames, const int *lines, uint32_t depth,
                                      uint32_t thread_seq, uint32_t key, int64_t weight);

/* GVL held: recording `id`'s allocation tables (frames, stacks and the
 * allocation samples of the current part), for the writer. */
const rp_aggregate *rp_aggregator_alloc_tables(rp_rec_id id);

/* Drops recording `id`'s data (after writing, a part, in a fork child):
 * its allocation samples too, but not their frames and stacks, which the
 * objects it follows refer to until the recording begins again. */
void rp_aggregator_clear(rp_rec_id id);

/* The same at a part: the tables emptied but their memory kept, as the
 * next part fills them again — a table grown afresh each part would
 * copy itself at each doubling and leave the process's memory fragmented
 * (a peak 20% higher by the third part of a 10 kHz run). */
void rp_aggregator_empty(rp_rec_id id);

/* GVL held, between rp_aggregator_hold and release, in a label compaction
 * (labels.h): the label sets of recording `id`'s samples move to the new
 * store. A sample there is no memory to carry is counted as dropped. */
void rp_aggregator_carry_labels(rp_rec_id id);

/* GVL held, between rp_aggregator_hold and release, in a compaction of
 * the frame names (frame_names.h): every table's names, renumbered. */
void rp_aggregator_renumber_frame_names(rp_frame_name_fn *fn);

/* The same, before it: recording `id`'s allocation tables keep only the
 * stacks still in use — those of its allocation samples, and those that
 * `holders` (allocations.c: the objects followed) holds — with their
 * frames, renumbered: a part lets go of the allocation stacks of objects
 * that have died. `holders` is called as frame_names.h's is: each time it
 * puts in place of every stack id it holds what `fn` returns. Returns 0,
 * or -1 when out of memory (nothing changed). */
typedef uint32_t rp_stack_fn(uint32_t stack);
int rp_aggregator_compact_alloc_stacks(rp_rec_id id, void (*holders)(rp_rec_id id, rp_stack_fn *fn));

/* fork(): the forking thread (GVL held) takes the lock before fork so that
 * the worker is never in the middle of a fold — and of malloc — when the
 * child is created (an allocator without fork handling, ASan's for one,
 * would leave the child blocked); the parent releases it, the child
 * re-initialises it. */
void rp_aggregator_before_fork(void);
void rp_aggregator_after_fork_parent(void);
void rp_aggregator_after_fork(void);

#endif
