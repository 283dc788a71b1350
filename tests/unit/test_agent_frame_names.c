/*
 * Unit tests for agent/frame_names: names interned once and read back
 * byte for byte (embedded NULs too), a different first line is a different
 * name, and the bounds: past RP_FRAME_NAMES_MAX names, or once their text
 * holds RP_FRAME_NAMES_BYTES, every new one gets the shared "[other
 * frames]" name while the known ones keep theirs; a compaction keeps the
 * names still held, renumbered and read back the same, lets the others
 * go, and so makes room under the bound again.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../agent/sampling/frame_names.h"
#include "../../common/idxset.h"

static rp_named_frame named(const char *path, const char *label, uint32_t first_line)
{
    return (rp_named_frame){path, label, strlen(path), strlen(label), first_line};
}

static int reset(void **state)
{
    (void)state;
    rp_frame_names_reset();
    return 0;
}

static void test_round_trip(void **state)
{
    (void)state;
    rp_named_frame a = named("app.rb", "Foo#bar", 12);
    uint32_t id = rp_frame_names_intern(&a);
    assert_int_not_equal(id, RP_IDX_NONE);
    rp_named_frame back = rp_frame_names_get(id);
    assert_int_equal(back.path_len, 6);
    assert_memory_equal(back.path, "app.rb", 6);
    assert_int_equal(back.label_len, 7);
    assert_memory_equal(back.label, "Foo#bar", 7);
    assert_int_equal(back.first_line, 12);
    assert_int_equal(rp_frame_names_intern(&a), id);
}

static void test_distinct_names(void **state)
{
    (void)state;
    rp_named_frame a = named("app.rb", "Foo#bar", 12), b = named("app.rb", "Foo#bar", 40),
                   c = named("lib.rb", "Foo#bar", 12), d = named("app.rb", "Foo#baz", 12);
    uint32_t ids[4] = {rp_frame_names_intern(&a), rp_frame_names_intern(&b), rp_frame_names_intern(&c),
                       rp_frame_names_intern(&d)};
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            assert_int_not_equal(ids[i], ids[j]);
    size_t count, bytes;
    rp_frame_names_footprint(&count, &bytes);
    assert_int_equal(count, 4);
    assert_true(bytes > 0);
}

static void test_embedded_nul(void **state)
{
    (void)state;
    rp_named_frame a = {"a\0b", "x", 3, 1, 0}, b = {"a\0c", "x", 3, 1, 0};
    uint32_t ia = rp_frame_names_intern(&a), ib = rp_frame_names_intern(&b);
    assert_int_not_equal(ia, ib);
    assert_memory_equal(rp_frame_names_get(ib).path, "a\0c", 3);
}

static void test_bound(void **state)
{
    (void)state;
    rp_named_frame first = named("app.rb", "kept", 1);
    uint32_t kept = rp_frame_names_intern(&first);
    char label[32];
    for (uint32_t i = 1; i < RP_FRAME_NAMES_MAX; i++) {
        snprintf(label, sizeof(label), "m%u", i);
        rp_named_frame n = named("gen.rb", label, i);
        assert_int_equal(rp_frame_names_intern(&n), i);
    }
    rp_named_frame past = named("gen.rb", "one too many", 7), past2 = named("gen.rb", "two too many", 7);
    uint32_t other = rp_frame_names_intern(&past);
    assert_int_not_equal(other, RP_IDX_NONE);
    assert_int_equal(rp_frame_names_intern(&past2), other);
    rp_named_frame o = rp_frame_names_get(other);
    assert_memory_equal(o.label, RP_FRAME_NAMES_OTHER, o.label_len);
    assert_int_equal(rp_frame_names_intern(&first), kept); /* known names keep theirs */
    size_t count, bytes;
    rp_frame_names_footprint(&count, &bytes);
    assert_int_equal(count, RP_FRAME_NAMES_MAX + 1);
}

/* 64 KB paths (eval'd code under long distinct file names): the text
 * bound stops the store at 32 MB, whatever the count. */
static void test_byte_bound(void **state)
{
    (void)state;
    enum { PATH_BYTES = 64 * 1024 };
    static char path[PATH_BYTES + 1];
    memset(path, 'p', PATH_BYTES);
    rp_named_frame first = named("app.rb", "kept", 1);
    uint32_t kept = rp_frame_names_intern(&first);
    uint32_t fitted = 0, other = RP_IDX_NONE;
    for (uint32_t i = 0; i < 2 * (RP_FRAME_NAMES_BYTES / PATH_BYTES) && other == RP_IDX_NONE; i++) {
        snprintf(path, sizeof(path), "%010u", i);
        path[10] = 'p';
        rp_named_frame n = {path, "m", PATH_BYTES, 1, 1};
        uint32_t id = rp_frame_names_intern(&n);
        assert_int_not_equal(id, RP_IDX_NONE);
        rp_named_frame got = rp_frame_names_get(id);
        if (got.label_len == strlen(RP_FRAME_NAMES_OTHER))
            other = id;
        else
            fitted++;
    }
    assert_int_not_equal(other, RP_IDX_NONE);
    assert_in_range(fitted, RP_FRAME_NAMES_BYTES / PATH_BYTES - 2, RP_FRAME_NAMES_BYTES / PATH_BYTES + 1);
    assert_int_equal(rp_frame_names_intern(&first), kept);
    size_t count, bytes;
    rp_frame_names_footprint(&count, &bytes);
    assert_true(bytes < 3 * RP_FRAME_NAMES_BYTES); /* the text, its room to grow (doubling) and the index */
}

/* A holder of names for the compaction tests: ids it renumbers in place,
 * and how many times it was visited. */
static uint32_t held[8];
static size_t held_count;
static int visits;

static void holders(rp_frame_name_fn *fn)
{
    visits++;
    for (size_t i = 0; i < held_count; i++)
        held[i] = fn(held[i]);
}

static void assert_named(uint32_t id, const char *path, const char *label, uint32_t first_line)
{
    rp_named_frame n = rp_frame_names_get(id);
    assert_int_equal(n.path_len, strlen(path));
    assert_memory_equal(n.path, path, n.path_len);
    assert_int_equal(n.label_len, strlen(label));
    assert_memory_equal(n.label, label, n.label_len);
    assert_int_equal(n.first_line, first_line);
}

static void test_compaction_keeps_what_is_held(void **state)
{
    (void)state;
    char label[32];
    for (uint32_t i = 0; i < 1000; i++) {
        snprintf(label, sizeof(label), "dropped%u", i);
        rp_named_frame n = named("eval.rb", label, i);
        rp_frame_names_intern(&n);
    }
    rp_named_frame a = named("app.rb", "Foo#bar", 12), b = named("lib.rb", "Baz.qux", 3);
    held[0] = rp_frame_names_intern(&a);
    held[1] = rp_frame_names_intern(&b);
    held[2] = RP_IDX_NONE;
    held[3] = held[0];
    held_count = 4;
    visits = 0;
    assert_int_equal(rp_frame_names_compact(holders), 0);
    assert_int_equal(visits, 2);
    size_t count, bytes;
    rp_frame_names_footprint(&count, &bytes);
    assert_int_equal(count, 2);
    assert_named(held[0], "app.rb", "Foo#bar", 12);
    assert_named(held[1], "lib.rb", "Baz.qux", 3);
    assert_int_equal(held[2], RP_IDX_NONE);
    assert_int_equal(held[3], held[0]);
    /* the store goes on from there: known names found, new ones added */
    assert_int_equal(rp_frame_names_intern(&a), held[0]);
    rp_named_frame c = named("new.rb", "fresh", 1);
    uint32_t ic = rp_frame_names_intern(&c);
    assert_true(ic != held[0] && ic != held[1]);
    assert_named(ic, "new.rb", "fresh", 1);
}

/* At the byte bound, new names are "[other frames]"; once the names held
 * are let go, new names get their own again, and "[other frames]" keeps
 * its meaning where it is still held. */
static void test_compaction_makes_room(void **state)
{
    (void)state;
    enum { PATH_BYTES = 64 * 1024 };
    static char path[PATH_BYTES + 1];
    memset(path, 'p', PATH_BYTES);
    uint32_t other = RP_IDX_NONE;
    for (uint32_t i = 0; other == RP_IDX_NONE; i++) {
        snprintf(path, sizeof(path), "%010u", i);
        path[10] = 'p';
        rp_named_frame n = {path, "m", PATH_BYTES, 1, 1};
        uint32_t id = rp_frame_names_intern(&n);
        if (rp_frame_names_get(id).label_len == strlen(RP_FRAME_NAMES_OTHER))
            other = id;
    }
    snprintf(path, sizeof(path), "late");
    path[4] = 'p';
    rp_named_frame late = {path, "late", PATH_BYTES, 4, 1};
    held[0] = other;
    held[1] = rp_frame_names_intern(&late);
    held_count = 2;
    assert_int_equal(held[1], other); /* past the bound */
    assert_int_equal(rp_frame_names_compact(holders), 0);
    assert_named(held[0], "", RP_FRAME_NAMES_OTHER, 0);
    assert_int_equal(held[1], held[0]);
    uint32_t id = rp_frame_names_intern(&late);
    assert_int_not_equal(id, held[0]);
    rp_named_frame got = rp_frame_names_get(id);
    assert_int_equal(got.path_len, PATH_BYTES);
    assert_memory_equal(got.path, path, PATH_BYTES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_round_trip, reset),
        cmocka_unit_test_setup(test_distinct_names, reset),
        cmocka_unit_test_setup(test_embedded_nul, reset),
        cmocka_unit_test_setup(test_bound, reset),
        cmocka_unit_test_setup(test_byte_bound, reset),
        cmocka_unit_test_setup(test_compaction_keeps_what_is_held, reset),
        cmocka_unit_test_setup(test_compaction_makes_room, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
