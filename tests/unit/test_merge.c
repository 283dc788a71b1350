/*
 * Unit tests for analyzer/merge: strings, frames and label sets are
 * re-numbered, counters summed, the root's facts kept.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../profile/merge.h"
#include "helpers.h"

static void make_process(rp_profile *p, int64_t pid, int64_t start, int64_t duration,
                         const char *pid_label)
{
    assert_int_equal(rp_profile_init(p, true), 0);
    uint32_t ls = label_set1(p, "%pid", pid_label);
    uint32_t blocked = label_set1(p, "%GVL", "blocked");
    add_sample(p, 100, 1, ls, "w.rb|Worker#run", "w.rb|<main>", NULL);
    add_sample(p, 10, 1, blocked, "<C method>|IO#read", "w.rb|<main>", NULL);
    p->meta.pid = pid;
    p->meta.start_time_ns = start;
    p->meta.duration_ns = duration;
    p->meta.total_duration_ns = duration;
    p->meta.trigger_count = 5;
    p->meta.sampling_count = 4;
    p->meta.sampling_time_ns = 1000;
    p->meta.worker_cpu_ns = 30000;
    p->meta.user_ns = 7;
    p->meta.frequency = 1000;
    p->meta.has_gc = true;
    p->meta.gc.count = pid; /* tells whose GC facts were kept */
    p->meta.command = malloc(sizeof(uint32_t));
    p->meta.command[0] = rp_profile_cstring(p, pid == 1 ? "root" : "child");
    p->meta.command_len = 1;
}

/* One method at two lines: two frames with keep_lines, one without (its
 * first line kept either way). */
static void test_merging_keeps_or_drops_lines(void **state)
{
    (void)state;
    rp_profile src, kept, dropped;
    char err[RP_MERGE_ERROR_MAX];
    make_two_line_profile(&src, 10);
    assert_int_equal(rp_profile_init(&kept, true), 0);
    assert_int_equal(rp_profile_init(&dropped, true), 0);
    assert_int_equal(rp_merge_into(&kept, &src, 0, true, err), 0);
    assert_int_equal(rp_merge_into(&dropped, &src, 0, false, err), 0);
    assert_int_equal(kept.frame_count, 4);
    assert_int_equal(kept.stacks.count, 3);
    assert_int_equal(dropped.frame_count, 3);
    assert_int_equal(dropped.stacks.count, 2);
    assert_int_equal(dropped.samples.count, 2);
    assert_int_equal(dropped.samples.samples[0].weight, 40);
    for (size_t i = 0; i < dropped.frame_count; i++)
        assert_int_equal(dropped.frames[i].line, 0);
    assert_int_equal(dropped.frames[0].start_line, 2);
    rp_profile_free(&src);
    rp_profile_free(&kept);
    rp_profile_free(&dropped);
}

static void test_merging_renumbers_and_sums(void **state)
{
    (void)state;
    rp_profile merged, child, root;
    char err[RP_MERGE_ERROR_MAX];
    assert_int_equal(rp_profile_init(&merged, true), 0);
    make_process(&child, 2, 200, 50, "2");
    make_process(&root, 1, 100, 80, "1");
    child.meta.parts_at_full_stacks = 1;
    root.meta.parts_at_full_stacks = 1;
    root.meta.parts_at_interval = 1;
    /* The child is merged first; the root (earlier start) still wins. */
    assert_int_equal(rp_merge_into(&merged, &child, 0, true, err), 0);
    assert_int_equal(rp_merge_into(&merged, &root, 1, true, err), 0);

    assert_int_equal(merged.meta.process_count, 2);
    assert_int_equal(merged.meta.trigger_count, 10);
    assert_int_equal(merged.meta.sampling_count, 8);
    assert_int_equal(merged.meta.sampling_time_ns, 2000);
    assert_int_equal(merged.meta.worker_cpu_ns, 60000);
    assert_int_equal(merged.meta.user_ns, 14);
    assert_int_equal(merged.meta.parts_at_full_stacks, 2);
    assert_int_equal(merged.meta.parts_at_interval, 1);
    /* From the root's start (100) to the child's end (200 + 50). */
    assert_int_equal(merged.meta.duration_ns, 150);
    assert_int_equal(merged.meta.total_duration_ns, 130);
    assert_int_equal(merged.meta.pid, 1);
    assert_int_equal(merged.meta.gc.count, 1);
    assert_string_equal(rp_profile_str(&merged, merged.meta.command[0]), "root");

    /* {}, {%pid:2}, {%GVL:blocked}, {%pid:1}: the shared set is not duplicated. */
    assert_int_equal(merged.label_set_count, 4);
    /* Same stack + thread but different %pid labels stay apart; the
     * %GVL=blocked samples of both processes fold into one. */
    assert_int_equal(merged.samples.count, 3);
    assert_int_equal(rp_sample_table_total(&merged.samples), 220);
    assert_int_equal(merged.frame_count, 3);
    rp_profile_free(&merged);
    rp_profile_free(&child);
    rp_profile_free(&root);
}

static void test_merging_reports_overflow(void **state)
{
    (void)state;
    rp_profile merged, a;
    char err[RP_MERGE_ERROR_MAX];
    assert_int_equal(rp_profile_init(&merged, true), 0);
    assert_int_equal(rp_profile_init(&a, true), 0);
    add_sample(&a, INT64_MAX, 1, 0, "a.rb|m", NULL);
    assert_int_equal(rp_merge_into(&merged, &a, 0, true, err), 0);
    assert_int_equal(rp_merge_into(&merged, &a, 1, true, err), -1);
    assert_non_null(strstr(err, "overflow"));
    rp_profile_free(&merged);
    rp_profile_free(&a);
}

/* rp_merge_into, every sample also labelled key=value. */
static int merge_labelled(rp_profile *dst, const rp_profile *src, size_t before, const char *key,
                          const char *value, char *err)
{
    rp_merge_pending pending;
    int rc = rp_merge_prepare(dst, src, true, &pending);
    if (rc == 0)
        rc = rp_merge_commit(dst, &pending, before, key, value, err);
    rp_merge_pending_free(&pending);
    return rc;
}

/* Each file's samples keep apart under a label of the loader's (the
 * viewer's time slots): every set of the file gains it, the file's own
 * labels stay. */
static void test_merging_with_a_label(void **state)
{
    (void)state;
    rp_profile merged, a;
    char err[RP_MERGE_ERROR_MAX];
    assert_int_equal(rp_profile_init(&merged, true), 0);
    assert_int_equal(rp_profile_init(&a, true), 0);
    add_sample(&a, 10, 1, 0, "a.rb|m", NULL);
    add_sample(&a, 20, 1, label_set1(&a, "%GVL", "blocked"), "a.rb|m", NULL);
    assert_int_equal(merge_labelled(&merged, &a, 0, "%slot", "0", err), 0);
    assert_int_equal(merge_labelled(&merged, &a, 1, "%slot", "1", err), 0);
    /* Two files: four samples, none summed across the slots. */
    assert_int_equal(merged.samples.count, 4);
    uint32_t slot = rp_profile_cstring(&merged, "%slot"), gvl = rp_profile_cstring(&merged, "%GVL");
    int64_t per_slot[2] = {0, 0};
    for (size_t i = 0; i < merged.samples.count; i++) {
        const rp_sample *s = &merged.samples.samples[i];
        const char *value = rp_profile_str(&merged, rp_profile_label_value(&merged, s->label_set, slot));
        per_slot[value[0] - '0'] += s->weight;
        if (s->weight == 20)
            assert_string_equal(rp_profile_str(&merged, rp_profile_label_value(&merged, s->label_set, gvl)), "blocked");
    }
    assert_int_equal(per_slot[0], 30);
    assert_int_equal(per_slot[1], 30);
    rp_profile_free(&merged);
    rp_profile_free(&a);
}

/* The loader's way with a time window: every file prepared as it is read,
 * only the wanted ones committed once all are read. The result is the
 * one-step merge of those files: a file prepared and dropped adds nothing
 * but unused table entries. */
static void test_committing_later_is_merging_at_once(void **state)
{
    (void)state;
    rp_profile at_once, later, child, root, unwanted;
    char err[RP_MERGE_ERROR_MAX];
    make_process(&child, 2, 200, 50, "2");
    make_process(&root, 1, 100, 80, "1");
    make_process(&unwanted, 3, 10, 5, "3");
    add_sample(&unwanted, 1000, 1, 0, "u.rb|Unwanted#work", NULL);
    assert_int_equal(rp_profile_init(&at_once, true), 0);
    assert_int_equal(rp_merge_into(&at_once, &child, 0, true, err), 0);
    assert_int_equal(rp_merge_into(&at_once, &root, 1, true, err), 0);

    assert_int_equal(rp_profile_init(&later, true), 0);
    rp_merge_pending pending[3];
    assert_int_equal(rp_merge_prepare(&later, &child, true, &pending[0]), 0);
    assert_int_equal(rp_merge_prepare(&later, &unwanted, true, &pending[1]), 0);
    assert_int_equal(rp_merge_prepare(&later, &root, true, &pending[2]), 0);
    assert_int_equal(later.samples.count, 0);
    assert_int_equal(rp_merge_commit(&later, &pending[0], 0, NULL, NULL, err), 0);
    assert_int_equal(rp_merge_commit(&later, &pending[2], 1, NULL, NULL, err), 0);
    for (int i = 0; i < 3; i++)
        rp_merge_pending_free(&pending[i]);

    assert_int_equal(later.meta.process_count, 2);
    assert_int_equal(later.meta.pid, 1);
    assert_int_equal(later.meta.duration_ns, at_once.meta.duration_ns);
    assert_int_equal(later.meta.trigger_count, at_once.meta.trigger_count);
    assert_string_equal(rp_profile_str(&later, later.meta.command[0]), "root");
    assert_int_equal(later.samples.count, at_once.samples.count);
    assert_int_equal(rp_sample_table_total(&later.samples), rp_sample_table_total(&at_once.samples));
    for (size_t i = 0; i < later.samples.count; i++) {
        const rp_sample *s = &later.samples.samples[i];
        uint32_t depth;
        const uint32_t *frames = rp_stack_table_get(&later.stacks, s->stack, &depth);
        const char *leaf = rp_profile_str(&later, later.frames[frames[0]].label);
        assert_string_not_equal(leaf, "Unwanted#work");
    }
    rp_profile_free(&at_once);
    rp_profile_free(&later);
    rp_profile_free(&child);
    rp_profile_free(&root);
    rp_profile_free(&unwanted);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merging_renumbers_and_sums),
        cmocka_unit_test(test_merging_keeps_or_drops_lines),
        cmocka_unit_test(test_merging_reports_overflow),
        cmocka_unit_test(test_merging_with_a_label),
        cmocka_unit_test(test_committing_later_is_merging_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
