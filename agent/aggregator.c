/*
 * agent/aggregator.c — folding samples into tables. See aggregator.h.
 *
 * Context: rp_aggregator_fold runs on the worker thread without the GVL and
 * must not call Ruby. mark_tables runs inside Ruby's GC (GVL held) and
 * takes `lock`, which fold holds for one buffer at a time, so the GC waits
 * at most one fold; the worker never waits for the GVL, so this cannot
 * deadlock.
 */
#include "aggregator.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../common/hash.h"
#include "../common/idxset.h"
#include "../common/vec.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t released = PTHREAD_COND_INITIALIZER;
static bool held; /* under `lock`: a GVL thread reads the tables */
static rp_aggregate tables;
static size_t frames_cap, lines_cap;
static rp_idxset frame_index;
static size_t stack_cap;
static VALUE mark_object = Qnil;

/* GC mark function — GVL held, inside GC: mark, nothing else. */
static void mark_tables(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&lock);
    rp_sample_buf_mark();
    for (size_t i = 0; i < tables.frame_count; i++)
        rb_gc_mark(tables.frames[i]); /* rb_gc_mark pins: frame VALUEs never move */
    pthread_mutex_unlock(&lock);
}

static const rb_data_type_t mark_type = {
    .wrap_struct_name = "rperf_agent_tables",
    .function = {.dmark = mark_tables},
};

int rp_aggregator_init(bool aggregate, size_t max_stacks)
{
    stack_cap = max_stacks;
    memset(&tables, 0, sizeof(tables));
    frames_cap = lines_cap = 0;
    rp_idxset_init(&frame_index);
    rp_stack_table_init(&tables.stacks);
    rp_sample_table_init(&tables.samples, aggregate);
    if (mark_object == Qnil) {
        mark_object = rb_data_typed_object_wrap(0, &tables, &mark_type);
        rb_gc_register_address(&mark_object);
    }
    return 0;
}

struct frame_key {
    VALUE value;
    uint32_t line;
};

static bool frame_equals(const void *ctx, uint32_t index)
{
    const struct frame_key *k = ctx;
    return tables.frames[index] == k->value && tables.lines[index] == k->line;
}

static int reserve_frame(void)
{
    return RP_VEC_RESERVE(tables.frames, frames_cap, tables.frame_count + 1) != 0 ||
                   RP_VEC_RESERVE(tables.lines, lines_cap, tables.frame_count + 1) != 0
               ? -1
               : 0;
}

static uint64_t frame_hash(VALUE v, uint32_t line)
{
    return rp_hash_combine(rp_hash_mix64((uint64_t)v), line);
}

static uint32_t find_frame(VALUE v, uint32_t line)
{
    struct frame_key key = {v, line};
    return rp_idxset_find(&frame_index, frame_hash(v, line), frame_equals, &key);
}

static uint32_t frame_id(VALUE v, uint32_t line)
{
    uint32_t id = find_frame(v, line);
    if (id != RP_IDX_NONE)
        return id;
    if (reserve_frame() != 0)
        return RP_IDX_NONE;
    id = (uint32_t)tables.frame_count;
    if (rp_idxset_insert(&frame_index, frame_hash(v, line), id) != 0)
        return RP_IDX_NONE;
    tables.frames[id] = v;
    tables.lines[id] = line;
    tables.frame_count++;
    return id;
}

/* The line of captured frame `i`: 0 when lines are not recorded (and for
 * frames Ruby gives no line: C methods, a JIT frame's top). */
static uint32_t line_of(const rp_sample_buf *buf, uint32_t i)
{
    return buf->has_lines && buf->lines[i] > 0 ? (uint32_t)buf->lines[i] : 0;
}

static uint32_t capped_stack(const rp_buffered_sample *s)
{
    uint32_t frame = frame_id(RP_CAPPED_FRAME, 0);
    tables.capped++;
    rp_add_saturating(&tables.capped_weight, s->weight);
    return frame == RP_IDX_NONE ? RP_IDX_NONE : rp_stack_table_intern(&tables.stacks, &frame, 1);
}

/* The sample's stack id. Once the table holds the cap, frames and stacks
 * are only looked up: anything new goes to the capped stack. */
static uint32_t stack_of(const rp_sample_buf *buf, const rp_buffered_sample *s)
{
    bool full = tables.stacks.count >= stack_cap;
    uint32_t ids[RP_STACK_MAX];
    for (uint32_t d = 0; d < s->depth; d++) {
        uint32_t i = s->frame_offset + d;
        ids[d] = full ? find_frame(buf->frames[i], line_of(buf, i))
                      : frame_id(buf->frames[i], line_of(buf, i));
        if (ids[d] == RP_IDX_NONE)
            return full ? capped_stack(s) : RP_IDX_NONE;
    }
    if (!full)
        return rp_stack_table_intern(&tables.stacks, ids, s->depth);
    uint32_t known = rp_stack_table_find(&tables.stacks, ids, s->depth);
    return known != RP_IDX_NONE ? known : capped_stack(s);
}

static bool fold_sample(const rp_sample_buf *buf, const rp_buffered_sample *s)
{
    uint32_t stack = stack_of(buf, s);
    return stack != RP_IDX_NONE &&
           rp_sample_table_add(&tables.samples, stack, s->thread_seq,
                               rp_sample_key(s->label_set, s->vm_state),
                               s->weight) == RP_SAMPLE_OK;
}

/* `lock` held. */
static void fold_locked(rp_sample_buf *buf)
{
    for (uint32_t i = 0; i < buf->count; i++)
        if (!fold_sample(buf, &buf->samples[i]))
            tables.dropped++;
    /* Emptied under the lock: the GC mark function reads frame_count. */
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

void rp_aggregator_hold(void)
{
    pthread_mutex_lock(&lock);
    rp_sample_buf *handed_over = rp_sample_buf_take_full();
    if (handed_over)
        fold_locked(handed_over);
    fold_locked(rp_sample_buf_active());
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

const rp_aggregate *rp_aggregator_tables(void)
{
    return &tables;
}

void rp_aggregator_clear(void)
{
    pthread_mutex_lock(&lock);
    bool aggregate = tables.samples.aggregate;
    free(tables.frames);
    free(tables.lines);
    rp_idxset_free(&frame_index);
    rp_stack_table_free(&tables.stacks);
    rp_sample_table_free(&tables.samples);
    memset(&tables, 0, sizeof(tables));
    frames_cap = lines_cap = 0;
    rp_stack_table_init(&tables.stacks);
    rp_sample_table_init(&tables.samples, aggregate);
    pthread_mutex_unlock(&lock);
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
