/*
 * Unit tests for agent/aggregator's compactions: a recording's allocation
 * tables let go of the stacks (and their frames) that neither a sample of
 * theirs nor a followed object holds, renumbering the stacks the holder
 * keeps; and the tables' frame names renumbered by a compaction of the
 * frame names stay found (their index rebuilt). The test links without
 * libruby: it defines the few agent functions aggregator.c calls.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "../../agent/sampling/aggregator.h"
#include "../../agent/sampling/frame_capture.h"
#include "../../agent/sampling/labels.h"

/* --- test doubles ---------------------------------------------------------- */

#define CAPPED_NAME 999u

uint32_t rp_frame_capture_capped(void)
{
    return CAPPED_NAME;
}

static rp_sample_buf empty_buf;

rp_sample_buf *rp_sample_buf_take_full(void)
{
    return NULL;
}

rp_sample_buf *rp_sample_buf_active(void)
{
    return &empty_buf;
}

uint32_t rp_labels_carry(uint32_t set)
{
    return set;
}

/* --- helpers ----------------------------------------------------------------- */

static uint32_t add(const uint32_t *names, uint32_t depth, int64_t weight)
{
    int lines[8] = {0};
    for (uint32_t d = 0; d < depth; d++)
        lines[d] = (int)(names[d] % 50) + 1;
    return rp_aggregator_add_allocation(RP_REC_WHOLE, names, lines, depth, 1, 7, weight);
}

/* The names of stack `stack` of the allocation tables, leaf first. */
static uint32_t names_of(uint32_t stack, uint32_t *out)
{
    const rp_aggregate *t = rp_aggregator_alloc_tables(RP_REC_WHOLE);
    uint32_t depth;
    const uint32_t *frames = rp_stack_table_get(&t->stacks, stack, &depth);
    for (uint32_t d = 0; d < depth; d++) {
        out[d] = t->frames[frames[d]];
        assert_int_equal(t->lines[frames[d]], out[d] % 50 + 1);
    }
    return depth;
}

/* The followed objects' stacks, as allocations.c holds them. */
static uint32_t followed[4];
static size_t followed_count;

static void followed_stacks(rp_rec_id id, rp_stack_fn *fn)
{
    assert_int_equal(id, RP_REC_WHOLE);
    for (size_t i = 0; i < followed_count; i++)
        followed[i] = fn(followed[i]);
}

static void no_stacks(rp_rec_id id, rp_stack_fn *fn)
{
    (void)id, (void)fn;
}

static int begin(void **state)
{
    (void)state;
    rp_aggregator_begin(RP_REC_WHOLE, true, 1000);
    rp_aggregator_begin(RP_REC_SESSION, true, 1000);
    followed_count = 0;
    return 0;
}

/* --- tests ------------------------------------------------------------------- */

static void test_stacks_of_dead_objects_let_go(void **state)
{
    (void)state;
    const uint32_t a[] = {1, 2, 3}, b[] = {4, 2, 3}, c[] = {5};
    add(a, 3, 100);
    uint32_t sb = add(b, 3, 100);
    add(c, 1, 100);
    rp_aggregator_empty(RP_REC_WHOLE); /* a part: the samples go, the stacks stay */
    const rp_aggregate *t = rp_aggregator_alloc_tables(RP_REC_WHOLE);
    assert_int_equal(t->stacks.count, 3);
    followed[0] = sb;
    followed[1] = RP_IDX_NONE;
    followed_count = 2;
    assert_int_equal(rp_aggregator_compact_alloc_stacks(RP_REC_WHOLE, followed_stacks), 0);
    t = rp_aggregator_alloc_tables(RP_REC_WHOLE);
    assert_int_equal(t->stacks.count, 1);
    assert_int_equal(t->frame_count, 3); /* 4, 2 and 3: 1 and 5 are gone */
    uint32_t names[8];
    assert_int_equal(names_of(followed[0], names), 3);
    assert_memory_equal(names, b, sizeof(b));
    assert_int_equal(followed[1], RP_IDX_NONE);
    /* the tables go on: the kept stack is found again, a new one added */
    assert_int_equal(add(b, 3, 1), followed[0]);
    assert_int_not_equal(add(a, 3, 1), followed[0]);
}

static void test_stacks_of_samples_kept(void **state)
{
    (void)state;
    const uint32_t a[] = {1, 2}, b[] = {3, 2};
    add(a, 2, 100);
    add(a, 2, 50);
    add(b, 2, 25);
    rp_aggregator_empty(RP_REC_WHOLE);
    uint32_t sa = add(a, 2, 30); /* a sample of the part now */
    assert_int_equal(rp_aggregator_compact_alloc_stacks(RP_REC_WHOLE, no_stacks), 0);
    const rp_aggregate *t = rp_aggregator_alloc_tables(RP_REC_WHOLE);
    assert_int_equal(t->stacks.count, 1);
    assert_int_equal(t->samples.count, 1);
    assert_int_equal(t->samples.samples[0].weight, 30);
    assert_int_equal(t->samples.samples[0].thread_seq, 1);
    assert_int_equal(t->samples.samples[0].label_set, 7);
    uint32_t names[8];
    assert_int_equal(names_of(t->samples.samples[0].stack, names), 2);
    assert_memory_equal(names, a, sizeof(a));
    (void)sa;
    /* the sample table's index is whole: the same key adds up */
    add(a, 2, 12);
    assert_int_equal(t->samples.count, 1);
    assert_int_equal(t->samples.samples[0].weight, 42);
}

static uint32_t plus_100(uint32_t id)
{
    return id == RP_IDX_NONE ? id : id + 100;
}

static void test_frame_names_renumbered(void **state)
{
    (void)state;
    const uint32_t a[] = {1, 2};
    uint32_t sa = add(a, 2, 10);
    rp_aggregator_renumber_frame_names(plus_100);
    uint32_t names[8];
    names_of(sa, names);
    assert_int_equal(names[0], 101);
    assert_int_equal(names[1], 102);
    /* the renumbered names are found: the same stack, no new frame */
    const rp_aggregate *t = rp_aggregator_alloc_tables(RP_REC_WHOLE);
    size_t frames = t->frame_count;
    const uint32_t renamed[] = {101, 102};
    assert_int_equal(add(renamed, 2, 10), sa);
    assert_int_equal(t->frame_count, frames);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_stacks_of_dead_objects_let_go, begin),
        cmocka_unit_test_setup(test_stacks_of_samples_kept, begin),
        cmocka_unit_test_setup(test_frame_names_renumbered, begin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
