/*
 * Unit tests for the interning tables of common/: idxset, strtab,
 * stack_table, sample_table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../common/hash.h"
#include "../../common/idxset.h"
#include "../../common/sample_table.h"
#include "../../common/stack_table.h"
#include "../../common/strtab.h"

static const uint64_t *eq_values;

static bool value_equals(const void *ctx, uint32_t index)
{
    return eq_values[index] == *(const uint64_t *)ctx;
}

static void test_idxset_finds_what_was_inserted(void **state)
{
    (void)state;
    enum { N = 20000 };
    static uint64_t values[N];
    rp_idxset set;
    rp_idxset_init(&set);
    eq_values = values;
    for (uint32_t i = 0; i < N; i++) {
        values[i] = (uint64_t)i * 7919 + 13;
        assert_int_equal(rp_idxset_find(&set, rp_hash_mix64(values[i]), value_equals, &values[i]),
                         RP_IDX_NONE);
        assert_int_equal(rp_idxset_insert(&set, rp_hash_mix64(values[i]), i), 0);
    }
    assert_int_equal(set.count, N);
    assert_true(set.count <= set.capacity / 4 * 3); /* load factor kept */
    for (uint32_t i = 0; i < N; i++)
        assert_int_equal(rp_idxset_find(&set, rp_hash_mix64(values[i]), value_equals, &values[i]), i);
    uint64_t absent = 5;
    assert_int_equal(rp_idxset_find(&set, rp_hash_mix64(absent), value_equals, &absent), RP_IDX_NONE);
    rp_idxset_free(&set);
}

/* Every key hashing to the same value still resolves by equality. */
static void test_idxset_survives_full_collisions(void **state)
{
    (void)state;
    static uint64_t values[300];
    rp_idxset set;
    rp_idxset_init(&set);
    eq_values = values;
    for (uint32_t i = 0; i < 300; i++) {
        values[i] = i;
        assert_int_equal(rp_idxset_insert(&set, 42, i), 0);
    }
    for (uint32_t i = 0; i < 300; i++)
        assert_int_equal(rp_idxset_find(&set, 42, value_equals, &values[i]), i);
    rp_idxset_free(&set);
}

static void test_strtab_interns_once(void **state)
{
    (void)state;
    rp_strtab t;
    rp_strtab_init(&t);
    uint32_t a = rp_strtab_intern(&t, "Object#fibonacci", 16);
    uint32_t b = rp_strtab_intern(&t, "<main>", 6);
    assert_int_not_equal(a, b);
    assert_int_equal(rp_strtab_intern(&t, "Object#fibonacci", 16), a);
    /* Embedded NULs are part of the string. */
    uint32_t c = rp_strtab_intern(&t, "a\0b", 3);
    uint32_t d = rp_strtab_intern(&t, "a\0c", 3);
    assert_int_not_equal(c, d);
    size_t len;
    const char *s = rp_strtab_get(&t, c, &len);
    assert_int_equal(len, 3);
    assert_memory_equal(s, "a\0b", 3);
    assert_int_equal(s[3], '\0');
    assert_int_equal(t.count, 4);
    /* Many strings: ids stay stable while the arena moves. */
    char buf[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(buf, sizeof(buf), "frame-%d", i);
        rp_strtab_intern(&t, buf, strlen(buf));
    }
    assert_string_equal(rp_strtab_get(&t, a, NULL), "Object#fibonacci");
    assert_string_equal(rp_strtab_get(&t, rp_strtab_intern(&t, "frame-4999", 10), NULL), "frame-4999");
    assert_int_equal(t.count, 5004);
    rp_strtab_free(&t);
}

static void test_stack_table_interns_sequences(void **state)
{
    (void)state;
    rp_stack_table t;
    rp_stack_table_init(&t);
    uint32_t s1[] = {1, 2, 3}, s2[] = {1, 2}, s3[] = {1, 2, 3};
    uint32_t a = rp_stack_table_intern(&t, s1, 3);
    uint32_t b = rp_stack_table_intern(&t, s2, 2);
    uint32_t e = rp_stack_table_intern(&t, NULL, 0);
    assert_int_not_equal(a, b);
    assert_int_not_equal(a, e);
    assert_int_equal(rp_stack_table_intern(&t, s3, 3), a);
    uint32_t depth;
    const uint32_t *f = rp_stack_table_get(&t, a, &depth);
    assert_int_equal(depth, 3);
    assert_memory_equal(f, s1, sizeof(s1));
    rp_stack_table_get(&t, e, &depth);
    assert_int_equal(depth, 0);
    rp_stack_table_free(&t);
}

static void test_sample_table_aggregates_by_key(void **state)
{
    (void)state;
    rp_sample_table t;
    rp_sample_table_init(&t, true);
    assert_int_equal(rp_sample_table_add(&t, 1, 1, 0, 100), RP_SAMPLE_OK);
    assert_int_equal(rp_sample_table_add(&t, 1, 1, 0, 50), RP_SAMPLE_OK);
    assert_int_equal(rp_sample_table_add(&t, 1, 2, 0, 7), RP_SAMPLE_OK); /* other thread */
    assert_int_equal(rp_sample_table_add(&t, 1, 1, 3, 9), RP_SAMPLE_OK); /* other labels */
    assert_int_equal(t.count, 3);
    assert_int_equal(t.samples[0].weight, 150);
    assert_int_equal(rp_sample_table_total(&t), 166);
    assert_int_equal(rp_sample_table_add(&t, 1, 1, 0, INT64_MAX), RP_SAMPLE_OVERFLOW);
    rp_sample_table_free(&t);
}

static void test_sample_table_raw_keeps_every_sample(void **state)
{
    (void)state;
    rp_sample_table t;
    rp_sample_table_init(&t, false);
    for (int i = 0; i < 10; i++)
        assert_int_equal(rp_sample_table_add(&t, 4, 1, 0, i), RP_SAMPLE_OK);
    assert_int_equal(t.count, 10);
    assert_int_equal(t.samples[9].weight, 9);
    rp_sample_table_free(&t);
}

/* A table emptied for the next part keeps its memory and forgets every
 * entry: what it held is interned afresh from id 0, nothing grows. */
static void test_tables_emptied_keep_memory(void **state)
{
    (void)state;
    rp_stack_table st;
    rp_stack_table_init(&st);
    assert_int_equal(rp_stack_table_reserve(&st, 1000, 3000), 0);
    uint32_t *pool = st.pool;
    size_t pool_cap = st.pool_cap, slots = st.index.capacity;
    for (uint32_t i = 0; i < 1000; i++) {
        uint32_t frames[] = {i, i + 1, i + 2};
        assert_int_equal(rp_stack_table_intern(&st, frames, 3), i);
    }
    assert_ptr_equal(st.pool, pool); /* reserved: no growth */
    assert_int_equal(st.index.capacity, slots);
    rp_stack_table_empty(&st);
    assert_int_equal(st.count, 0);
    assert_int_equal(st.pool_cap, pool_cap);
    uint32_t old[] = {500, 501, 502}, fresh[] = {7, 7};
    assert_int_equal(rp_stack_table_find(&st, old, 3), RP_IDX_NONE);
    assert_int_equal(rp_stack_table_intern(&st, fresh, 2), 0);
    assert_int_equal(rp_stack_table_intern(&st, old, 3), 1);
    assert_int_equal(rp_stack_table_intern(&st, fresh, 2), 0);
    rp_stack_table_free(&st);

    rp_sample_table t;
    rp_sample_table_init(&t, true);
    assert_int_equal(rp_sample_table_reserve(&t, 64), 0);
    rp_sample *samples = t.samples;
    for (uint32_t i = 0; i < 64; i++)
        assert_int_equal(rp_sample_table_add(&t, i, 1, 0, 10), RP_SAMPLE_OK);
    assert_ptr_equal(t.samples, samples);
    rp_sample_table_empty(&t);
    assert_int_equal(t.count, 0);
    assert_int_equal(rp_sample_table_total(&t), 0);
    assert_int_equal(rp_sample_table_add(&t, 5, 1, 0, 3), RP_SAMPLE_OK);
    assert_int_equal(rp_sample_table_add(&t, 5, 1, 0, 4), RP_SAMPLE_OK);
    assert_int_equal(t.count, 1);
    assert_int_equal(t.samples[0].weight, 7);
    rp_sample_table_free(&t);

    rp_sample_table raw;
    rp_sample_table_init(&raw, false);
    assert_int_equal(rp_sample_table_add_at(&raw, 1, 1, 0, 5, 111), RP_SAMPLE_OK);
    rp_sample_table_empty(&raw);
    assert_int_equal(rp_sample_table_add(&raw, 2, 1, 0, 6), RP_SAMPLE_OK);
    assert_int_equal(rp_sample_time(&raw, 0), 0); /* no time left from before */
    rp_sample_table_free(&raw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idxset_finds_what_was_inserted),
        cmocka_unit_test(test_idxset_survives_full_collisions),
        cmocka_unit_test(test_strtab_interns_once),
        cmocka_unit_test(test_stack_table_interns_sequences),
        cmocka_unit_test(test_sample_table_aggregates_by_key),
        cmocka_unit_test(test_sample_table_raw_keeps_every_sample),
        cmocka_unit_test(test_tables_emptied_keep_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
