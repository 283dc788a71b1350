/*
 * agent/sampling/aggregator.c — folding samples into tables. See aggregator.h.
 *
 * Context: rp_aggregator_fold runs on the worker thread without the GVL and
 * must not call Ruby; it holds `lock` for one buffer at a time. The GVL
 * side takes `lock` to begin, clear, hold and release the tables; the
 * worker never waits for the GVL, so this cannot deadlock.
 */
#include "aggregator.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/hash.h"
#include "../../common/idxset.h"
#include "../../common/renumbering.h"
#include "../../common/vec.h"
#include "frame_capture.h"
#include "frame_names.h"
#include "labels.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t released = PTHREAD_COND_INITIALIZER;
static bool held; /* under `lock`: a GVL thread reads the tables */

/* A stack folded lately into a table set, as captured (names and lines,
 * leaf first), and its stack id: the next sample's is often one of the
 * last few (the allocations of a loop, a thread waiting), and then needs
 * no look-up. depth 0: none. */
typedef struct last_stack {
    uint32_t frames[RP_STACK_MAX], lines[RP_STACK_MAX];
    uint32_t depth, stack;
} last_stack;

#define LAST_STACKS 4

/* One recording's tables and what grows them. */
typedef struct table_set {
    rp_aggregate t;
    size_t frames_cap, lines_cap;
    rp_idxset frame_index;
    size_t stack_cap;
    size_t fill_at;  /* stacks at which the tables count as filled (a part is due) */
    bool fill_said;  /* on_filled was called since the tables were last emptied */
    bool part_asked; /* and it asked for a part that empties them */
    uint32_t capped_name; /* the capped stack's frame name, made with the GVL */
    last_stack last[LAST_STACKS];
    unsigned next_last; /* the one replaced next */
} table_set;

static table_set sets[RP_RECORDINGS];
/* Allocation samples (allocations.h), folded by the GVL holder itself: no
 * other thread touches them, so they need no lock. Their frames and stacks
 * outlive a part (only the samples are cleared), as the objects followed
 * since earlier parts refer to their stacks. */
static table_set alloc_sets[RP_RECORDINGS];
static bool (*on_filled)(rp_rec_id id); /* rp_aggregator_set_on_filled */

/* A part is asked for with an eighth of the bound still free: the samples
 * folded until the part is taken (the next safepoint) keep their stacks. */
static size_t fill_point(size_t max_stacks)
{
    return max_stacks - max_stacks / 8;
}

static void free_set(table_set *ts)
{
    free(ts->t.frames);
    free(ts->t.lines);
    rp_idxset_free(&ts->frame_index);
    rp_stack_table_free(&ts->t.stacks);
    rp_sample_table_free(&ts->t.samples);
    memset(ts, 0, sizeof(*ts));
}

/* `lock` held: empty tables of the given kind. */
static void reset_set(table_set *ts, bool aggregate, size_t max_stacks, uint32_t capped_name)
{
    free_set(ts);
    ts->stack_cap = max_stacks;
    ts->fill_at = fill_point(max_stacks);
    ts->capped_name = capped_name;
    rp_idxset_init(&ts->frame_index);
    rp_stack_table_init(&ts->t.stacks);
    rp_sample_table_init(&ts->t.samples, aggregate);
}

static void fold_locked(rp_sample_buf *buf);

/* `lock` held: everything buffered so far into the tables. */
static void fold_buffered(void)
{
    rp_sample_buf *handed_over = rp_sample_buf_take_full();
    if (handed_over)
        fold_locked(handed_over);
    fold_locked(rp_sample_buf_active());
}

void rp_aggregator_begin(rp_rec_id id, bool aggregate, size_t max_stacks)
{
    uint32_t capped = rp_frame_capture_capped();
    pthread_mutex_lock(&lock);
    /* Samples still buffered for an earlier recording of this id (the
     * last moments of a session, a fork parent's) go before it begins. */
    fold_buffered();
    reset_set(&sets[id], aggregate, max_stacks, capped);
    reset_set(&alloc_sets[id], aggregate, max_stacks, capped);
    pthread_mutex_unlock(&lock);
}

struct frame_key {
    const rp_aggregate *tables;
    uint32_t value;
    uint32_t line;
};

static bool frame_equals(const void *ctx, uint32_t index)
{
    const struct frame_key *k = ctx;
    return k->tables->frames[index] == k->value && k->tables->lines[index] == k->line;
}

static int reserve_frame(table_set *ts)
{
    return RP_VEC_RESERVE(ts->t.frames, ts->frames_cap, ts->t.frame_count + 1) != 0 ||
                   RP_VEC_RESERVE(ts->t.lines, ts->lines_cap, ts->t.frame_count + 1) != 0
               ? -1
               : 0;
}

static uint64_t frame_hash(uint32_t v, uint32_t line)
{
    return rp_hash_combine(rp_hash_mix64((uint64_t)v), line);
}

static uint32_t find_frame(const table_set *ts, uint32_t v, uint32_t line)
{
    struct frame_key key = {&ts->t, v, line};
    return rp_idxset_find(&ts->frame_index, frame_hash(v, line), frame_equals, &key);
}

static uint32_t frame_id(table_set *ts, uint32_t v, uint32_t line)
{
    uint32_t id = find_frame(ts, v, line);
    if (id != RP_IDX_NONE)
        return id;
    if (reserve_frame(ts) != 0)
        return RP_IDX_NONE;
    id = (uint32_t)ts->t.frame_count;
    if (rp_idxset_insert(&ts->frame_index, frame_hash(v, line), id) != 0)
        return RP_IDX_NONE;
    ts->t.frames[id] = v;
    ts->t.lines[id] = line;
    ts->t.frame_count++;
    return id;
}

/* A captured stack: frame names leaf first, and their lines (NULL when
 * lines are not recorded; 0 or less where Ruby gives none: C methods, a
 * JIT frame's top). */
typedef struct captured_stack {
    const uint32_t *frames;
    const int *lines;
    uint32_t depth;
} captured_stack;

static uint32_t line_of(const captured_stack *c, uint32_t d)
{
    return c->lines && c->lines[d] > 0 ? (uint32_t)c->lines[d] : 0;
}

static uint32_t capped_stack(table_set *ts, int64_t weight)
{
    uint32_t frame = ts->capped_name == RP_IDX_NONE ? RP_IDX_NONE : frame_id(ts, ts->capped_name, 0);
    ts->t.capped++;
    rp_add_saturating(&ts->t.capped_weight, weight);
    return frame == RP_IDX_NONE ? RP_IDX_NONE : rp_stack_table_intern(&ts->t.stacks, &frame, 1);
}

static bool is_same(const last_stack *last, const captured_stack *c)
{
    if (last->depth != c->depth)
        return false;
    for (uint32_t d = 0; d < c->depth; d++)
        if (last->frames[d] != c->frames[d] || last->lines[d] != line_of(c, d))
            return false;
    return true;
}

static void keep_last(last_stack *last, const captured_stack *c, uint32_t stack)
{
    for (uint32_t d = 0; d < c->depth; d++) {
        last->frames[d] = c->frames[d];
        last->lines[d] = line_of(c, d);
    }
    last->depth = c->depth;
    last->stack = stack;
}

/* The stacks a table may hold now: its bound, or while the part asked
 * for is not yet taken, more — as much again, and at least two buffers
 * of samples (the rest of the buffer being folded, and what is captured
 * until the next safepoint takes the part). */
static size_t bound_now(const table_set *ts)
{
    size_t room = ts->stack_cap > 2 * RP_BUF_SAMPLES ? ts->stack_cap : 2 * RP_BUF_SAMPLES;
    return ts->part_asked ? ts->stack_cap + room : ts->stack_cap;
}

/* The stack id of a sample of `weight`, looked up. Once the table holds
 * the cap, frames and stacks are only looked up: anything new goes to
 * the capped stack (*capped set). */
static uint32_t look_up_stack(table_set *ts, const captured_stack *c, int64_t weight, bool *capped)
{
    bool full = ts->t.stacks.count >= bound_now(ts);
    uint32_t ids[RP_STACK_MAX];
    for (uint32_t d = 0; d < c->depth; d++) {
        ids[d] = full ? find_frame(ts, c->frames[d], line_of(c, d))
                      : frame_id(ts, c->frames[d], line_of(c, d));
        if (ids[d] != RP_IDX_NONE)
            continue;
        *capped = full;
        return full ? capped_stack(ts, weight) : RP_IDX_NONE;
    }
    if (!full)
        return rp_stack_table_intern(&ts->t.stacks, ids, c->depth);
    uint32_t known = rp_stack_table_find(&ts->t.stacks, ids, c->depth);
    *capped = known == RP_IDX_NONE;
    return known != RP_IDX_NONE ? known : capped_stack(ts, weight);
}

/* The stack id of a sample of `weight`: a recent one's when it is the
 * same stack (a capped one never is kept: each sample of it is counted). */
static uint32_t stack_of(table_set *ts, const captured_stack *c, int64_t weight)
{
    for (int i = 0; i < LAST_STACKS; i++)
        if (is_same(&ts->last[i], c))
            return ts->last[i].stack;
    bool capped = false;
    uint32_t stack = look_up_stack(ts, c, weight, &capped);
    if (stack != RP_IDX_NONE && !capped) {
        keep_last(&ts->last[ts->next_last], c, stack);
        ts->next_last = (ts->next_last + 1) % LAST_STACKS;
    }
    return stack;
}

static bool fold_sample(table_set *ts, const rp_sample_buf *buf, const rp_buffered_sample *s)
{
    captured_stack c = {buf->frames + s->frame_offset, buf->has_lines ? buf->lines + s->frame_offset : NULL,
                        s->depth};
    uint32_t stack = stack_of(ts, &c, s->weight);
    return stack != RP_IDX_NONE &&
           rp_sample_table_add_at(&ts->t.samples, stack, s->thread_seq, rp_sample_key(s->label_set, s->vm_state),
                                  s->weight, s->time_ns) == RP_SAMPLE_OK;
}

/* `lock` held. */
static void fold_locked(rp_sample_buf *buf)
{
    for (uint32_t i = 0; i < buf->count; i++) {
        const rp_buffered_sample *s = &buf->samples[i];
        rp_rec_id id = s->recording < RP_RECORDINGS ? (rp_rec_id)s->recording : RP_REC_WHOLE;
        table_set *ts = &sets[id];
        if (!fold_sample(ts, buf, s))
            ts->t.dropped++;
        if (!ts->fill_said && ts->t.stacks.count >= ts->fill_at && on_filled) {
            ts->fill_said = true;
            ts->part_asked = on_filled(id);
        }
    }
    /* Emptied under the lock: rp_aggregator_hold may fold it too. */
    buf->count = 0;
    buf->frame_count = 0;
}

void rp_aggregator_fold(rp_sample_buf *buf)
{
    pthread_mutex_lock(&lock);
    while (held)
        pthread_cond_wait(&released, &lock);
    fold_locked(buf);
    pthread_mutex_unlock(&lock);
}

void rp_aggregator_set_on_filled(bool (*filled)(rp_rec_id id))
{
    pthread_mutex_lock(&lock);
    on_filled = filled;
    pthread_mutex_unlock(&lock);
}

void rp_aggregator_hold(void)
{
    pthread_mutex_lock(&lock);
    fold_buffered();
    held = true;
    pthread_mutex_unlock(&lock);
}

void rp_aggregator_release(void)
{
    pthread_mutex_lock(&lock);
    held = false;
    pthread_cond_broadcast(&released);
    pthread_mutex_unlock(&lock);
}

const rp_aggregate *rp_aggregator_tables(rp_rec_id id)
{
    return &sets[id].t;
}

const rp_aggregate *rp_aggregator_alloc_tables(rp_rec_id id)
{
    return &alloc_sets[id].t;
}

uint32_t rp_aggregator_add_allocation(rp_rec_id id, const uint32_t *frames, const int *lines, uint32_t depth,
                                      uint32_t thread_seq, uint32_t key, int64_t weight)
{
    table_set *ts = &alloc_sets[id];
    captured_stack c = {frames, lines, depth};
    uint32_t stack = stack_of(ts, &c, weight);
    if (stack == RP_IDX_NONE ||
        rp_sample_table_add(&ts->t.samples, stack, thread_seq, key, weight) != RP_SAMPLE_OK) {
        ts->t.dropped++;
        return RP_IDX_NONE;
    }
    return stack;
}

void rp_aggregator_clear(rp_rec_id id)
{
    pthread_mutex_lock(&lock);
    reset_set(&sets[id], sets[id].t.samples.aggregate, sets[id].stack_cap, sets[id].capped_name);
    /* the allocation samples of the part are gone; their stacks stay */
    rp_sample_table_free(&alloc_sets[id].t.samples);
    rp_sample_table_init(&alloc_sets[id].t.samples, sets[id].t.samples.aggregate);
    pthread_mutex_unlock(&lock);
}

void rp_aggregator_empty(rp_rec_id id)
{
    pthread_mutex_lock(&lock);
    table_set *ts = &sets[id];
    ts->t.frame_count = 0;
    rp_idxset_empty(&ts->frame_index);
    rp_stack_table_empty(&ts->t.stacks);
    rp_sample_table_empty(&ts->t.samples);
    ts->t.dropped = ts->t.capped = 0;
    ts->t.capped_weight = 0;
    memset(ts->last, 0, sizeof(ts->last));
    ts->next_last = 0;
    ts->fill_said = ts->part_asked = false;
    rp_sample_table_empty(&alloc_sets[id].t.samples);
    pthread_mutex_unlock(&lock);
}

void rp_aggregator_carry_labels(rp_rec_id id)
{
    rp_sample_table *old = &sets[id].t.samples;
    rp_sample_table carried;
    rp_sample_table_init(&carried, old->aggregate);
    for (size_t i = 0; i < old->count; i++) {
        const rp_sample *s = &old->samples[i];
        uint32_t set;
        rp_vm_state state;
        rp_sample_key_split(s->label_set, &set, &state);
        uint32_t key = rp_sample_key(rp_labels_carry(set), state);
        if (rp_sample_table_add_at(&carried, s->stack, s->thread_seq, key, s->weight, rp_sample_time(old, i)) !=
            RP_SAMPLE_OK)
            sets[id].t.dropped++;
    }
    rp_sample_table_free(old);
    *old = carried;
}

/* --- compactions (GVL held, between rp_aggregator_hold and release) ----- */

static void rebuild_frame_index(table_set *ts)
{
    rp_idxset_empty(&ts->frame_index);
    /* as many entries as the index held before: it does not grow, and
     * cannot fail */
    for (size_t i = 0; i < ts->t.frame_count; i++)
        rp_idxset_insert(&ts->frame_index, frame_hash(ts->t.frames[i], ts->t.lines[i]), (uint32_t)i);
}

static void renumber_set(table_set *ts, rp_frame_name_fn *fn)
{
    for (size_t i = 0; i < ts->t.frame_count; i++)
        ts->t.frames[i] = fn(ts->t.frames[i]);
    ts->capped_name = fn(ts->capped_name);
    memset(ts->last, 0, sizeof(ts->last));
    ts->next_last = 0;
    rebuild_frame_index(ts);
}

void rp_aggregator_renumber_frame_names(rp_frame_name_fn *fn)
{
    for (int r = 0; r < RP_RECORDINGS; r++) {
        renumber_set(&sets[r], fn);
        renumber_set(&alloc_sets[r], fn);
    }
}

/* The stacks in use during one rp_aggregator_compact_alloc_stacks, and
 * their new numbers. */
static rp_renumbering stacks_held;

static uint32_t keep_stack(uint32_t stack)
{
    return rp_renumbering_keep(&stacks_held, stack);
}

static uint32_t move_stack(uint32_t stack)
{
    return rp_renumbering_move(&stacks_held, stack);
}

/* The kept stacks of `old`, their frames and its samples into `fresh`
 * (empty tables of the same kind). Returns 0 or -1 (out of memory). */
static int copy_kept_stacks(const table_set *old, table_set *fresh)
{
    for (size_t s = 0; s < stacks_held.count; s++) {
        stacks_held.moved[s] = RP_IDX_NONE;
        if (!stacks_held.kept[s])
            continue;
        uint32_t depth, ids[RP_STACK_MAX];
        const uint32_t *frames = rp_stack_table_get(&old->t.stacks, (uint32_t)s, &depth);
        for (uint32_t d = 0; d < depth; d++)
            if ((ids[d] = frame_id(fresh, old->t.frames[frames[d]], old->t.lines[frames[d]])) == RP_IDX_NONE)
                return -1;
        if ((stacks_held.moved[s] = rp_stack_table_intern(&fresh->t.stacks, ids, depth)) == RP_IDX_NONE)
            return -1;
    }
    const rp_sample_table *samples = &old->t.samples;
    for (size_t i = 0; i < samples->count; i++) {
        const rp_sample *x = &samples->samples[i];
        if (rp_sample_table_add_at(&fresh->t.samples, move_stack(x->stack), x->thread_seq, x->label_set,
                                   x->weight, rp_sample_time(samples, i)) != RP_SAMPLE_OK)
            return -1;
    }
    return 0;
}

int rp_aggregator_compact_alloc_stacks(rp_rec_id id, void (*holders)(rp_rec_id id, rp_stack_fn *fn))
{
    table_set *ts = &alloc_sets[id];
    if (ts->t.stacks.count == 0)
        return 0;
    table_set fresh = {0};
    int rc = rp_renumbering_begin(&stacks_held, ts->t.stacks.count);
    if (rc == 0) {
        for (size_t i = 0; i < ts->t.samples.count; i++)
            keep_stack(ts->t.samples.samples[i].stack);
        holders(id, keep_stack);
        reset_set(&fresh, ts->t.samples.aggregate, ts->stack_cap, ts->capped_name);
        rc = copy_kept_stacks(ts, &fresh);
    }
    if (rc == 0) {
        holders(id, move_stack);
        fresh.t.dropped = ts->t.dropped;
        fresh.t.capped = ts->t.capped;
        fresh.t.capped_weight = ts->t.capped_weight;
        free_set(ts);
        *ts = fresh;
    } else {
        free_set(&fresh);
    }
    rp_renumbering_end(&stacks_held);
    return rc;
}

void rp_aggregator_before_fork(void)
{
    pthread_mutex_lock(&lock);
}

void rp_aggregator_after_fork_parent(void)
{
    pthread_mutex_unlock(&lock);
}

void rp_aggregator_after_fork(void)
{
    pthread_mutex_init(&lock, NULL);
    pthread_cond_init(&released, NULL);
    held = false;
}
