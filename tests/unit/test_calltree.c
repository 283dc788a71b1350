/*
 * Unit tests for the viewer's call tree (profile/encode/calltree.c): shape,
 * totals, leaves kept per thread and label set, recursion, and the folding
 * of light subtrees into "(other)".
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../profile/encode/calltree.h"
#include "helpers.h"

/* The node under `parent` whose frame has `label`, or RP_IDX_NONE. */
static uint32_t child_named(const rp_profile *p, const rp_calltree *t, uint32_t parent, const char *label)
{
    for (size_t n = 1; n < t->node_count; n++) {
        uint32_t f = t->nodes[n].frame;
        if (t->nodes[n].parent != parent)
            continue;
        if (f == RP_CALLTREE_OTHER ? strcmp(label, "(other)") == 0
                                   : strcmp(rp_profile_str(p, p->frames[f].label), label) == 0)
            return (uint32_t)n;
    }
    return RP_IDX_NONE;
}

static uint32_t node_at(const rp_profile *p, const rp_calltree *t, const char *const *labels)
{
    uint32_t n = 0;
    for (; *labels && n != RP_IDX_NONE; labels++)
        n = child_named(p, t, n, *labels);
    return n;
}

static int64_t leaf_weight(const rp_calltree *t, uint32_t node)
{
    int64_t w = 0;
    for (size_t i = 0; i < t->leaves.count; i++)
        if (t->leaves.samples[i].stack == node)
            w += t->leaves.samples[i].weight;
    return w;
}

/* Every node's total is what ends at it plus its children's totals, and
 * parents come before children. */
static void check_conservation(const rp_calltree *t)
{
    int64_t *sum = calloc(t->node_count, sizeof(*sum));
    for (size_t n = t->node_count; n-- > 0;) {
        sum[n] += leaf_weight(t, (uint32_t)n);
        assert_int_equal(sum[n], t->nodes[n].total);
        if (n > 0) {
            assert_true(t->nodes[n].parent < n);
            sum[t->nodes[n].parent] += sum[n];
        }
    }
    free(sum);
}

/* main -> a -> b (30), main -> a (10, thread 2), main -> c (5), and the
 * recursion main -> a -> a (7). */
static void make_profile(rp_profile *p)
{
    assert_int_equal(rp_profile_init(p, true), 0);
    uint32_t blocked = label_set1(p, "%GVL", "blocked");
    add_sample(p, 20, 1, 0, "x.rb|b", "x.rb|a", "x.rb|main", NULL);
    add_sample(p, 10, 1, blocked, "x.rb|b", "x.rb|a", "x.rb|main", NULL);
    add_sample(p, 10, 2, 0, "x.rb|a", "x.rb|main", NULL);
    add_sample(p, 5, 1, 0, "<C method>|c", "x.rb|main", NULL);
    add_sample(p, 7, 1, 0, "x.rb|a", "x.rb|a", "x.rb|main", NULL);
}

static void test_tree_shape_and_totals(void **state)
{
    (void)state;
    rp_profile p;
    make_profile(&p);
    rp_calltree t;
    assert_int_equal(rp_calltree_build(&p, 0, 0, &t), 0);
    /* root, main, a, b, c, a (recursive) */
    assert_int_equal(t.node_count, 6);
    assert_int_equal(t.nodes[0].frame, RP_CALLTREE_ROOT);
    assert_int_equal(t.nodes[0].total, 52);
    uint32_t a = node_at(&p, &t, (const char *[]){"main", "a", NULL});
    uint32_t b = node_at(&p, &t, (const char *[]){"main", "a", "b", NULL});
    uint32_t aa = node_at(&p, &t, (const char *[]){"main", "a", "a", NULL});
    uint32_t c = node_at(&p, &t, (const char *[]){"main", "c", NULL});
    assert_int_not_equal(aa, RP_IDX_NONE);
    assert_int_equal(t.nodes[a].total, 47);
    assert_int_equal(t.nodes[b].total, 30);
    assert_int_equal(t.nodes[aa].total, 7);
    assert_int_equal(t.nodes[c].total, 5);
    /* b's weight stays apart per label set; a's per thread */
    int found = 0;
    for (size_t i = 0; i < t.leaves.count; i++) {
        const rp_sample *s = &t.leaves.samples[i];
        if (s->stack == b)
            found++, assert_int_equal(s->weight, s->label_set == 0 ? 20 : 10);
        if (s->stack == a)
            found++, assert_int_equal(s->thread_seq, 2);
    }
    assert_int_equal(found, 3);
    assert_int_equal(t.folded_nodes, 0);
    check_conservation(&t);
    rp_calltree_free(&t);
    rp_profile_free(&p);
}

static void test_folding(void **state)
{
    (void)state;
    rp_profile p;
    make_profile(&p);
    /* c (5) and a->a (7) are under 8: each folds into its parent's
     * "(other)"; b (30) and a (47) stay. */
    rp_calltree t;
    assert_int_equal(rp_calltree_build(&p, 8, 0, &t), 0);
    assert_int_equal(t.folded_nodes, 2);
    assert_int_equal(t.folded_weight, 12);
    assert_int_equal(node_at(&p, &t, (const char *[]){"main", "c", NULL}), RP_IDX_NONE);
    uint32_t other_main = node_at(&p, &t, (const char *[]){"main", "(other)", NULL});
    uint32_t other_a = node_at(&p, &t, (const char *[]){"main", "a", "(other)", NULL});
    assert_int_equal(t.nodes[other_main].total, 5);
    assert_int_equal(t.nodes[other_a].total, 7);
    assert_int_equal(t.nodes[0].total, 52);
    check_conservation(&t);
    rp_calltree_free(&t);

    /* A subtree exactly at the threshold stays. */
    assert_int_equal(rp_calltree_build(&p, 7, 0, &t), 0);
    assert_int_equal(t.folded_nodes, 1);
    assert_int_not_equal(node_at(&p, &t, (const char *[]){"main", "a", "a", NULL}), RP_IDX_NONE);
    rp_calltree_free(&t);

    /* Siblings fold into one "(other)" per parent. */
    assert_int_equal(rp_calltree_build(&p, 40, 0, &t), 0);
    uint32_t main = node_at(&p, &t, (const char *[]){"main", NULL});
    assert_int_equal(t.nodes[node_at(&p, &t, (const char *[]){"main", "a", "(other)", NULL})].total, 37);
    assert_int_equal(t.nodes[child_named(&p, &t, main, "(other)")].total, 5);
    check_conservation(&t);
    rp_calltree_free(&t);

    /* Everything folds: one "(other)" under the root carries it all. */
    assert_int_equal(rp_calltree_build(&p, 1000, 0, &t), 0);
    assert_int_equal(t.node_count, 2);
    assert_int_equal(t.nodes[1].frame, RP_CALLTREE_OTHER);
    assert_int_equal(t.nodes[1].total, 52);
    check_conservation(&t);
    rp_calltree_free(&t);
    rp_profile_free(&p);
}

static void test_empty_and_rootless(void **state)
{
    (void)state;
    rp_profile p;
    assert_int_equal(rp_profile_init(&p, true), 0);
    rp_calltree t;
    assert_int_equal(rp_calltree_build(&p, 0, 0, &t), 0);
    assert_int_equal(t.node_count, 1);
    assert_int_equal(t.leaves.count, 0);
    rp_calltree_free(&t);
    /* A sample with no frames (hand-made files) ends at the root. */
    uint32_t empty = rp_profile_stack(&p, NULL, 0);
    assert_int_equal(rp_sample_table_add(&p.samples, empty, 1, 0, 9), RP_SAMPLE_OK);
    assert_int_equal(rp_calltree_build(&p, 0, 0, &t), 0);
    assert_int_equal(t.node_count, 1);
    assert_int_equal(leaf_weight(&t, 0), 9);
    check_conservation(&t);
    rp_calltree_free(&t);
    rp_profile_free(&p);
}

/* Many random stacks: the tree conserves weight at every threshold. */
static void test_random_conservation(void **state)
{
    (void)state;
    rp_profile p;
    assert_int_equal(rp_profile_init(&p, true), 0);
    srand(7);
    char names[12][8];
    for (int i = 0; i < 12; i++)
        snprintf(names[i], sizeof(names[i]), "f%d", i);
    for (int s = 0; s < 400; s++) {
        uint32_t ids[10], depth = 1 + (uint32_t)(rand() % 10);
        for (uint32_t d = 0; d < depth; d++)
            ids[d] = rp_profile_frame(&p, rp_profile_cstring(&p, "r.rb"), rp_profile_cstring(&p, names[rand() % 4 + (d % 3) * 4]));
        assert_int_equal(rp_sample_table_add(&p.samples, rp_profile_stack(&p, ids, depth),
                                             (uint32_t)(rand() % 3), 0, 1 + rand() % 100),
                         RP_SAMPLE_OK);
    }
    int64_t total = rp_sample_table_total(&p.samples);
    size_t last_nodes = SIZE_MAX;
    for (int64_t min = 0; min <= total; min = min ? min * 4 : 1) {
        rp_calltree t;
        assert_int_equal(rp_calltree_build(&p, min, 0, &t), 0);
        assert_int_equal(t.nodes[0].total, total);
        check_conservation(&t);
        for (size_t n = 1; n < t.node_count; n++)
            if (t.nodes[n].frame != RP_CALLTREE_OTHER)
                assert_true(t.nodes[n].total >= min);
        assert_true(t.node_count <= last_nodes);
        last_nodes = t.node_count;
        rp_calltree_free(&t);
    }
    rp_profile_free(&p);
}

/* A node budget raises the threshold to the lowest that fits. */
static void test_node_budget(void **state)
{
    (void)state;
    rp_profile p;
    make_profile(&p);
    rp_calltree t;
    /* weights: main 52, a 47, b 30, a->a 7, c 5: a budget of 3 keeps
     * main, a and b, folding a->a and c */
    assert_int_equal(rp_calltree_build(&p, 0, 3, &t), 0);
    assert_int_equal(t.folded_nodes, 2);
    assert_true(t.fold_below > 7 && t.fold_below <= 30);
    assert_int_not_equal(node_at(&p, &t, (const char *[]){"main", "a", "b", NULL}), RP_IDX_NONE);
    check_conservation(&t);
    rp_calltree_free(&t);
    /* A budget the tree fits in changes nothing; min_weight still holds. */
    assert_int_equal(rp_calltree_build(&p, 6, 100, &t), 0);
    assert_int_equal(t.fold_below, 6);
    assert_int_equal(t.folded_nodes, 1);
    rp_calltree_free(&t);
    rp_profile_free(&p);
}

/* Matching by method names across two profiles: a tree matched with
 * itself finds every node; a path the base lacks is -1; "(other)" too. */

/* The base's total / self at a matched node, -1 where none matched. */
static int64_t matched_total(const rp_calltree *b, const uint32_t *match, size_t n)
{
    return match[n] == RP_IDX_NONE ? -1 : b->nodes[match[n]].total;
}

static int64_t matched_self(const int64_t *base_self, const uint32_t *match, size_t n)
{
    return match[n] == RP_IDX_NONE ? -1 : base_self[match[n]];
}

static void test_match(void **state)
{
    (void)state;
    rp_profile target, base;
    make_profile(&target);
    assert_int_equal(rp_profile_init(&base, true), 0);
    /* the base: main -> a -> b (4) and main -> d (6); its ids differ */
    add_sample(&base, 6, 1, 0, "x.rb|d", "x.rb|main", NULL);
    add_sample(&base, 4, 1, 0, "x.rb|b", "x.rb|a", "x.rb|main", NULL);
    rp_calltree t, b;
    assert_int_equal(rp_calltree_build(&target, 0, 0, &t), 0);
    uint32_t *same = malloc(t.node_count * sizeof(*same));
    assert_int_equal(rp_calltree_match(&t, &target, &t, &target, same), 0);
    for (size_t n = 0; n < t.node_count; n++)
        assert_int_equal(same[n], n);
    assert_int_equal(rp_calltree_build(&base, 0, 0, &b), 0);
    assert_int_equal(rp_calltree_match(&t, &target, &b, &base, same), 0);
    int64_t *base_self = malloc(b.node_count * sizeof(*base_self));
    rp_calltree_self(&b, base_self);
#define BASE_TOTAL(...) matched_total(&b, same, node_at(&target, &t, (const char *[]){__VA_ARGS__, NULL}))
#define BASE_SELF(...) matched_self(base_self, same, node_at(&target, &t, (const char *[]){__VA_ARGS__, NULL}))
    assert_int_equal(b.nodes[same[0]].total, 10);
    assert_int_equal(BASE_TOTAL("main"), 10);
    assert_int_equal(BASE_TOTAL("main", "a"), 4);
    assert_int_equal(BASE_TOTAL("main", "a", "b"), 4);
    assert_int_equal(BASE_TOTAL("main", "c"), -1);
    assert_int_equal(BASE_TOTAL("main", "a", "a"), -1);
    /* self: what ends at the node in the base */
    assert_int_equal(BASE_SELF("main"), 0);
    assert_int_equal(BASE_SELF("main", "a"), 0);
    assert_int_equal(BASE_SELF("main", "a", "b"), 4);
    assert_int_equal(BASE_SELF("main", "c"), -1);
    rp_calltree_free(&t);
    assert_int_equal(rp_calltree_build(&target, 8, 0, &t), 0);
    uint32_t *folded = malloc(t.node_count * sizeof(*folded));
    assert_int_equal(rp_calltree_match(&t, &target, &b, &base, folded), 0);
    assert_int_equal(folded[node_at(&target, &t, (const char *[]){"main", "(other)", NULL})], RP_IDX_NONE);
#undef BASE_TOTAL
#undef BASE_SELF
    free(base_self);
    free(folded);
    free(same);
    rp_calltree_free(&t);
    rp_calltree_free(&b);
    rp_profile_free(&base);
    rp_profile_free(&target);
}

/* Two blocks of one method in one file under one parent (one label and
 * path, first lines 3 and 8): each matches its own node of the same
 * profile, and of another profile where the lighter is missing the other
 * finds its own; a block whose first line moved falls back to its method. */
static void test_match_same_method_siblings(void **state)
{
    (void)state;
    rp_profile target, base;
    assert_int_equal(rp_profile_init(&target, true), 0);
    add_sample(&target, 30, 1, 0, "x.rb|block in main|0|3", "x.rb|main|0|1", NULL);
    add_sample(&target, 10, 1, 0, "x.rb|block in main|0|8", "x.rb|main|0|1", NULL);
    rp_calltree t, b;
    assert_int_equal(rp_calltree_build(&target, 0, 0, &t), 0);
    uint32_t *match = malloc(t.node_count * sizeof(*match));
    assert_int_equal(rp_calltree_match(&t, &target, &t, &target, match), 0);
    for (size_t n = 0; n < t.node_count; n++)
        assert_int_equal(match[n], n);
    assert_int_equal(rp_profile_init(&base, true), 0);
    add_sample(&base, 4, 1, 0, "x.rb|main|0|1", NULL);
    add_sample(&base, 6, 1, 0, "x.rb|block in main|0|8", "x.rb|main|0|1", NULL);
    assert_int_equal(rp_calltree_build(&base, 0, 0, &b), 0);
    assert_int_equal(rp_calltree_match(&t, &target, &b, &base, match), 0);
    for (size_t n = 1; n < t.node_count; n++) {
        uint32_t f = t.nodes[n].frame;
        if (target.frames[f].start_line != 1)
            assert_int_equal(b.nodes[match[n]].total, 6); /* the block at 8; the one at 3, by its method */
    }
    free(match);
    rp_calltree_free(&t);
    rp_calltree_free(&b);
    rp_profile_free(&base);
    rp_profile_free(&target);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree_shape_and_totals),
        cmocka_unit_test(test_folding),
        cmocka_unit_test(test_empty_and_rootless),
        cmocka_unit_test(test_random_conservation),
        cmocka_unit_test(test_node_budget),
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_match_same_method_siblings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
