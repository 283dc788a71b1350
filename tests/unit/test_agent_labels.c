/*
 * Unit tests for agent/labels: the label set store behind Rperf.label —
 * merging, overriding, deleting, one id per distinct set whatever the
 * order, many keys in one change, reading the pairs back, and compaction
 * between parts (only held and carried sets survive, renumbered), and
 * the bound of the store's text.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../agent/sampling/labels.h"
#include "../../common/idxset.h"

static rp_label_change set(const char *key, const char *value)
{
    return (rp_label_change){key, value, strlen(key), value ? strlen(value) : 0};
}

/* The value of `key` in set `id`, or NULL. */
static const char *value_of(uint32_t id, const char *key)
{
    static char buf[64];
    for (uint32_t i = 0; i < rp_labels_pair_count(id); i++) {
        const char *k, *v;
        size_t kl, vl;
        rp_labels_pair(id, i, &k, &kl, &v, &vl);
        if (kl == strlen(key) && memcmp(k, key, kl) == 0) {
            snprintf(buf, sizeof(buf), "%.*s", (int)vl, v);
            return buf;
        }
    }
    return NULL;
}

static int setup(void **state)
{
    (void)state;
    return rp_labels_init();
}

static void test_empty_set_is_zero(void **state)
{
    (void)state;
    assert_int_equal(rp_labels_pair_count(0), 0);
    assert_true(rp_labels_set_count() >= 1);
    assert_int_equal(rp_labels_merge(0, NULL, 0), 0);
    rp_label_change gone = set("nothing", NULL);
    assert_int_equal(rp_labels_merge(0, &gone, 1), 0); /* deleting an absent key */
}

static void test_merge_override_delete(void **state)
{
    (void)state;
    rp_label_change ab[] = {set("a", "1"), set("b", "2")};
    uint32_t s1 = rp_labels_merge(0, ab, 2);
    assert_int_not_equal(s1, 0);
    assert_int_equal(rp_labels_pair_count(s1), 2);
    assert_string_equal(value_of(s1, "a"), "1");
    assert_string_equal(value_of(s1, "b"), "2");

    rp_label_change b3 = set("b", "3");
    uint32_t s2 = rp_labels_merge(s1, &b3, 1); /* merged: a stays, b changes */
    assert_int_equal(rp_labels_pair_count(s2), 2);
    assert_string_equal(value_of(s2, "a"), "1");
    assert_string_equal(value_of(s2, "b"), "3");
    assert_string_equal(value_of(s1, "b"), "2"); /* the base set is unchanged */

    rp_label_change del_a = set("a", NULL);
    uint32_t s3 = rp_labels_merge(s2, &del_a, 1);
    assert_int_equal(rp_labels_pair_count(s3), 1);
    assert_null(value_of(s3, "a"));
    assert_string_equal(value_of(s3, "b"), "3");

    rp_label_change del_b = set("b", NULL);
    assert_int_equal(rp_labels_merge(s3, &del_b, 1), 0); /* back to no labels */
}

static void test_one_id_per_set(void **state)
{
    (void)state;
    rp_label_change xy[] = {set("x", "1"), set("y", "2")};
    rp_label_change yx[] = {set("y", "2"), set("x", "1")};
    uint32_t a = rp_labels_merge(0, xy, 2);
    assert_int_equal(rp_labels_merge(0, yx, 2), a);
    rp_label_change y = set("y", "2"), x = set("x", "1");
    assert_int_equal(rp_labels_merge(rp_labels_merge(0, &y, 1), &x, 1), a);
    /* The last value of a key given twice wins. */
    rp_label_change twice[] = {set("x", "0"), set("y", "2"), set("x", "1")};
    assert_int_equal(rp_labels_merge(0, twice, 3), a);
    uint32_t before = rp_labels_set_count();
    assert_int_equal(rp_labels_merge(0, xy, 2), a);
    assert_int_equal(rp_labels_set_count(), before); /* nothing new stored */
}

static void test_many_keys_and_binary_values(void **state)
{
    (void)state;
    char keys[40][8];
    rp_label_change changes[40];
    for (int i = 0; i < 40; i++) {
        snprintf(keys[i], sizeof(keys[i]), "k%d", i);
        changes[i] = set(keys[i], keys[i]);
    }
    uint32_t s = rp_labels_merge(0, changes, 40);
    assert_int_equal(rp_labels_pair_count(s), 40);
    assert_string_equal(value_of(s, "k39"), "k39");
    /* Values are bytes, kept exactly (an embedded NUL included). */
    rp_label_change nul = {"bin", "a\0b", 3, 3};
    uint32_t b = rp_labels_merge(0, &nul, 1);
    const char *k, *v;
    size_t kl, vl;
    rp_labels_pair(b, 0, &k, &kl, &v, &vl);
    assert_int_equal(vl, 3);
    assert_memory_equal(v, "a\0b", 3);
}

/* A request id per set, as a server labelling each request would make. */
static uint32_t request_set(uint32_t base, int id)
{
    char value[16];
    snprintf(value, sizeof(value), "%d", id);
    rp_label_change c = set("request", value);
    return rp_labels_merge(base, &c, 1);
}

static void test_compaction_keeps_sets_in_use(void **state)
{
    (void)state;
    rp_label_change ep = set("endpoint", "GET /users");
    uint32_t outer = rp_labels_merge(0, &ep, 1);
    /* A block labelled inside `outer` holds it; the thread's current set
     * is a request's; thousands of other requests' sets are done with. */
    rp_label_hold *held = rp_labels_hold(outer);
    assert_non_null(held);
    uint32_t current = 0;
    for (int i = 0; i < 5000; i++)
        current = request_set(outer, i);
    assert_true(rp_labels_set_count() > 5000);

    assert_int_equal(rp_labels_compact_begin(), 0);
    current = rp_labels_carry(current);
    rp_labels_compact_end();
    /* {}, the held set and the current one. */
    assert_int_equal(rp_labels_set_count(), 3);
    assert_string_equal(value_of(current, "request"), "4999");
    assert_string_equal(value_of(current, "endpoint"), "GET /users");
    uint32_t restored = rp_labels_release(held);
    assert_int_equal(rp_labels_pair_count(restored), 1);
    assert_string_equal(value_of(restored, "endpoint"), "GET /users");
    /* Merging after a compaction finds the carried sets. */
    assert_int_equal(request_set(restored, 4999), current);
    assert_int_equal(rp_labels_merge(0, &ep, 1), restored);

    /* A released hold is not carried by the next compaction. */
    assert_int_equal(rp_labels_compact_begin(), 0);
    assert_int_equal(rp_labels_carry(0), 0);
    rp_labels_compact_end();
    assert_int_equal(rp_labels_set_count(), 1);
    assert_int_equal(rp_labels_pair_count(0), 0);
}

static void test_holds_released_in_any_order(void **state)
{
    (void)state;
    /* Fibers can end labelled blocks out of order. */
    uint32_t sets[4];
    rp_label_hold *holds[4];
    for (int i = 0; i < 4; i++) {
        sets[i] = request_set(0, 100 + i);
        holds[i] = rp_labels_hold(sets[i]);
    }
    assert_int_equal(rp_labels_release(holds[1]), sets[1]);
    assert_int_equal(rp_labels_compact_begin(), 0);
    rp_labels_compact_end();
    assert_int_equal(rp_labels_set_count(), 4); /* {} and the three still held */
    const int order[] = {3, 0, 2};
    for (int i = 0; i < 3; i++) {
        uint32_t s = rp_labels_release(holds[order[i]]);
        char want[16];
        snprintf(want, sizeof(want), "%d", 100 + order[i]);
        assert_string_equal(value_of(s, "request"), want);
    }
}

/* Values of 1 MB (a query's text as a label): the store's text stops at
 * RP_LABEL_TEXT_BYTES; a new value past it is RP_LABEL_OTHER, known ones
 * keep theirs, and a compaction that lets them go makes room again. */
static void test_text_bound(void **state)
{
    (void)state;
    assert_int_equal(rp_labels_compact_begin(), 0); /* nothing carried: an empty store */
    rp_labels_compact_end();
    enum { VALUE_BYTES = 1 << 20 };
    static char value[VALUE_BYTES + 1];
    memset(value, 'q', VALUE_BYTES);
    rp_label_change c = {"sql", value, 3, VALUE_BYTES};
    uint32_t first = RP_IDX_NONE, other = RP_IDX_NONE;
    size_t fitted = 0;
    for (int i = 0; i < 40 && other == RP_IDX_NONE; i++) {
        snprintf(value, sizeof(value), "%08d", i);
        value[8] = 'q';
        uint32_t s = rp_labels_merge(0, &c, 1);
        assert_int_not_equal(s, RP_IDX_NONE);
        const char *v = value_of(s, "sql");
        if (strcmp(v, RP_LABEL_OTHER) == 0)
            other = s;
        else if (fitted++ == 0)
            first = s;
    }
    assert_int_not_equal(other, RP_IDX_NONE);
    assert_int_equal(fitted, RP_LABEL_TEXT_BYTES / VALUE_BYTES - 1);
    snprintf(value, sizeof(value), "%08d", 0);
    value[8] = 'q';
    assert_int_equal(rp_labels_merge(0, &c, 1), first); /* known: its own set */
    assert_int_equal(rp_labels_compact_begin(), 0);
    rp_labels_compact_end();
    snprintf(value, sizeof(value), "%08d", 99);
    value[8] = 'q';
    assert_string_not_equal(value_of(rp_labels_merge(0, &c, 1), "sql"), RP_LABEL_OTHER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_set_is_zero),
        cmocka_unit_test(test_merge_override_delete),
        cmocka_unit_test(test_one_id_per_set),
        cmocka_unit_test(test_many_keys_and_binary_values),
        cmocka_unit_test(test_compaction_keeps_sets_in_use),
        cmocka_unit_test(test_holds_released_in_any_order),
        cmocka_unit_test(test_text_bound),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
