/*
 * profile/encode/calltree.c — the merged call tree. See calltree.h.
 *
 * Samples are sorted by their stacks read from the root, so the samples
 * under any node are one contiguous run and each child is a sub-run with
 * the same frame at the next depth. The tree is built top-down from those
 * runs: a run's weight is known before its node is made, so a folded
 * subtree is never built at all and memory follows the kept tree, not
 * the number of distinct stacks.
 */
#include "calltree.h"

#include <math.h>
#include <stdlib.h>

#include "../../common/stack_table.h"
#include "../../common/strtab.h"
#include "../../common/vec.h"

typedef struct sorted_sample {
    const uint32_t *frames; /* leaf first, as stacks are stored */
    uint32_t depth;
    uint32_t sample; /* index into the profile's samples */
} sorted_sample;

/* A run of sorted samples sharing the path to `node` (`depth` frames). */
typedef struct pending_run {
    uint32_t node;
    size_t lo, hi;
    uint32_t depth;
} pending_run;

typedef struct builder {
    const rp_profile *p;
    rp_calltree *t;
    sorted_sample *sorted;
    int64_t min_weight;
    pending_run *runs;
    size_t run_count, runs_cap;
} builder;

/* The frame at `d` counted from the root. */
static inline uint32_t frame_from_root(const sorted_sample *s, uint32_t d)
{
    return s->frames[s->depth - 1 - d];
}

static int compare_from_root(const void *a, const void *b)
{
    const sorted_sample *x = a, *y = b;
    uint32_t common = x->depth < y->depth ? x->depth : y->depth;
    for (uint32_t d = 0; d < common; d++) {
        uint32_t fx = frame_from_root(x, d), fy = frame_from_root(y, d);
        if (fx != fy)
            return fx < fy ? -1 : 1;
    }
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return x->sample < y->sample ? -1 : x->sample > y->sample;
}

/* The end of the group of samples from `i` on (before `hi`) that share
 * the frame at `depth`: one child of the run's node. */
static size_t group_end(const builder *b, size_t i, size_t hi, uint32_t depth)
{
    uint32_t frame = frame_from_root(&b->sorted[i], depth);
    size_t j = i + 1;
    while (j < hi && frame_from_root(&b->sorted[j], depth) == frame)
        j++;
    return j;
}

static uint32_t add_node(rp_calltree *t, uint32_t parent, uint32_t frame, int64_t total)
{
    if (t->node_count >= RP_IDX_NONE - 1 || RP_VEC_RESERVE(t->nodes, t->nodes_cap, t->node_count + 1) != 0)
        return RP_IDX_NONE;
    t->nodes[t->node_count] = (rp_calltree_node){parent, frame, total};
    return (uint32_t)t->node_count++;
}

static int add_leaf(builder *b, uint32_t node, const sorted_sample *s)
{
    const rp_sample *sample = &b->p->samples.samples[s->sample];
    /* Weights were summed without overflow in the profile, and a node's
     * leaves are a part of them. */
    return rp_sample_table_add(&b->t->leaves, node, sample->thread_seq, sample->label_set,
                               sample->weight) == RP_SAMPLE_OK
               ? 0
               : -1;
}

static int push_run(builder *b, uint32_t node, size_t lo, size_t hi, uint32_t depth)
{
    if (RP_VEC_RESERVE(b->runs, b->runs_cap, b->run_count + 1) != 0)
        return -1;
    b->runs[b->run_count++] = (pending_run){node, lo, hi, depth};
    return 0;
}

static int64_t run_weight(const builder *b, size_t lo, size_t hi)
{
    int64_t w = 0;
    for (size_t i = lo; i < hi; i++)
        rp_add_saturating(&w, b->p->samples.samples[b->sorted[i].sample].weight);
    return w;
}

/* Folds the run [lo, hi) under `parent` into its "(other)" child, made
 * when first needed (*other). */
static int fold_run(builder *b, uint32_t parent, uint32_t *other, size_t lo, size_t hi, int64_t weight)
{
    rp_calltree *t = b->t;
    if (*other == RP_IDX_NONE && (*other = add_node(t, parent, RP_CALLTREE_OTHER, 0)) == RP_IDX_NONE)
        return -1;
    rp_add_saturating(&t->nodes[*other].total, weight);
    t->folded_nodes++;
    rp_add_saturating(&t->folded_weight, weight);
    for (size_t i = lo; i < hi; i++)
        if (add_leaf(b, *other, &b->sorted[i]) != 0)
            return -1;
    return 0;
}

/* Makes the children of one run's node: samples ending there become its
 * leaves; each group of samples with the same next frame becomes a child
 * (to be expanded later) or, when too light, part of "(other)". */
static int expand_run(builder *b, pending_run run)
{
    size_t i = run.lo;
    for (; i < run.hi && b->sorted[i].depth == run.depth; i++)
        if (add_leaf(b, run.node, &b->sorted[i]) != 0)
            return -1;
    uint32_t other = RP_IDX_NONE;
    while (i < run.hi) {
        uint32_t frame = frame_from_root(&b->sorted[i], run.depth);
        size_t j = group_end(b, i, run.hi, run.depth);
        int64_t weight = run_weight(b, i, j);
        if (weight < b->min_weight) {
            if (fold_run(b, run.node, &other, i, j, weight) != 0)
                return -1;
        } else {
            uint32_t child = add_node(b->t, run.node, frame, weight);
            if (child == RP_IDX_NONE || push_run(b, child, i, j, run.depth + 1) != 0)
                return -1;
        }
        i = j;
    }
    return 0;
}

/* --- choosing the threshold for a node budget ------------------------------
 * Every node of the full tree is a run of sorted samples; a node is kept
 * exactly when its weight reaches the threshold (a parent weighs at least
 * as much as its child). A histogram of node weights, in steps of 1/8 of
 * a power of two, tells how many nodes each threshold keeps, without
 * building any of them. */
#define STEPS_PER_OCTAVE 8
#define WEIGHT_BUCKETS (64 * STEPS_PER_OCTAVE)

static int bucket_of(int64_t w)
{
    if (w <= 1)
        return 0;
    int b = (int)(log2((double)w) * STEPS_PER_OCTAVE);
    return b < WEIGHT_BUCKETS ? b : WEIGHT_BUCKETS - 1;
}

static int64_t bucket_floor(int b)
{
    double v = ceil(exp2((double)b / STEPS_PER_OCTAVE));
    return v >= 9.2e18 ? INT64_MAX : (int64_t)v;
}

/* Counts the nodes of weight >= min_weight per weight bucket. */
static int count_nodes(builder *b, size_t counts[WEIGHT_BUCKETS])
{
    if (push_run(b, 0, 0, b->p->samples.count, 0) != 0)
        return -1;
    while (b->run_count > 0) {
        pending_run run = b->runs[--b->run_count];
        size_t i = run.lo;
        while (i < run.hi && b->sorted[i].depth == run.depth)
            i++;
        while (i < run.hi) {
            size_t j = group_end(b, i, run.hi, run.depth);
            int64_t weight = run_weight(b, i, j);
            if (weight >= b->min_weight) {
                counts[bucket_of(weight)]++;
                if (push_run(b, 0, i, j, run.depth + 1) != 0)
                    return -1;
            }
            i = j;
        }
    }
    return 0;
}

/* The lowest threshold >= min_weight keeping at most max_nodes nodes. */
static int budget_threshold(builder *b, size_t max_nodes, int64_t *threshold)
{
    size_t counts[WEIGHT_BUCKETS] = {0};
    if (count_nodes(b, counts) != 0)
        return -1;
    size_t kept = 0;
    int lowest = WEIGHT_BUCKETS; /* the lowest bucket that still fits */
    for (int k = WEIGHT_BUCKETS - 1; k >= 0 && kept + counts[k] <= max_nodes; k--) {
        kept += counts[k];
        lowest = k;
    }
    if (lowest > 0) {
        int64_t floor = bucket_floor(lowest);
        if (floor > *threshold)
            *threshold = floor;
    }
    return 0;
}

static int sort_samples(builder *b)
{
    const rp_profile *p = b->p;
    b->sorted = rp_alloc_array(p->samples.count, sizeof(*b->sorted));
    if (!b->sorted)
        return -1;
    for (size_t i = 0; i < p->samples.count; i++) {
        sorted_sample *s = &b->sorted[i];
        s->frames = rp_stack_table_get(&p->stacks, p->samples.samples[i].stack, &s->depth);
        s->sample = (uint32_t)i;
    }
    qsort(b->sorted, p->samples.count, sizeof(*b->sorted), compare_from_root);
    return 0;
}

int rp_calltree_build(const rp_profile *p, int64_t min_weight, size_t max_nodes, rp_calltree *t)
{
    *t = (rp_calltree){0};
    rp_sample_table_init(&t->leaves, true);
    builder b = {.p = p, .t = t, .min_weight = min_weight};
    int rc = -1;
    if (sort_samples(&b) != 0 || (max_nodes > 0 && budget_threshold(&b, max_nodes, &b.min_weight) != 0))
        goto out;
    t->fold_below = b.min_weight;
    if (add_node(t, RP_IDX_NONE, RP_CALLTREE_ROOT, rp_sample_table_total(&p->samples)) == RP_IDX_NONE ||
        push_run(&b, 0, 0, p->samples.count, 0) != 0)
        goto out;
    while (b.run_count > 0)
        if (expand_run(&b, b.runs[--b.run_count]) != 0)
            goto out;
    rc = 0;
out:
    free(b.sorted);
    free(b.runs);
    if (rc != 0)
        rp_calltree_free(t);
    return rc;
}

void rp_calltree_free(rp_calltree *t)
{
    free(t->nodes);
    rp_sample_table_free(&t->leaves);
    *t = (rp_calltree){0};
}

/* --- matching two trees by method names ------------------------------------------ */

void rp_method_ids_init(rp_method_ids *ids)
{
    rp_strtab_init(&ids->strings);
    rp_stack_table_init(&ids->pairs);
}

void rp_method_ids_free(rp_method_ids *ids)
{
    rp_strtab_free(&ids->strings);
    rp_stack_table_free(&ids->pairs);
}

uint32_t rp_method_id(rp_method_ids *ids, const rp_profile *p, uint32_t frame)
{
    size_t len;
    const char *label = rp_strtab_get(&p->strings, p->frames[frame].label, &len);
    uint32_t pair[2] = {rp_strtab_intern(&ids->strings, label, len), 0};
    const char *path = rp_strtab_get(&p->strings, p->frames[frame].path, &len);
    pair[1] = rp_strtab_intern(&ids->strings, path, len);
    if (pair[0] == RP_IDX_NONE || pair[1] == RP_IDX_NONE)
        return RP_IDX_NONE;
    return rp_stack_table_intern(&ids->pairs, pair, 2);
}

/* Base edges are found by the child's method under its parent; where a
 * parent has several children of one method (two blocks of a method in
 * one file, a method at several lines with lines recorded), by the
 * child's frame first: its method, first line and line. */
typedef struct matcher {
    rp_method_ids names;  /* the methods of both profiles */
    rp_stack_table edges; /* (parent node of b, name id): an edge of b */
    rp_stack_table exact; /* (parent node of b, name id, start line, line): an edge of b */
    uint32_t *edge_child; /* edge id -> node of b */
    uint32_t *exact_child; /* exact edge id -> node of b */
    size_t edge_count, exact_count;
} matcher;

/* The edge of `key` (`n` elements) in `table`, added when new;
 * RP_IDX_NONE when out of memory. Looking up inserts too: ids past the
 * count indexed are misses. */
static uint32_t edge_of(rp_stack_table *table, const uint32_t *key, uint32_t n)
{
    return key[1] == RP_IDX_NONE ? RP_IDX_NONE : rp_stack_table_intern(table, key, n);
}

static int index_edges(matcher *m, const rp_calltree *b, const rp_profile *bp)
{
    m->edge_child = rp_alloc_array(b->node_count, sizeof(*m->edge_child));
    m->exact_child = rp_alloc_array(b->node_count, sizeof(*m->exact_child));
    if (!m->edge_child || !m->exact_child)
        return -1;
    for (size_t n = 1; n < b->node_count; n++) {
        uint32_t f = b->nodes[n].frame;
        if (f == RP_CALLTREE_OTHER)
            continue;
        uint32_t key[4] = {b->nodes[n].parent, rp_method_id(&m->names, bp, f), bp->frames[f].start_line,
                           bp->frames[f].line};
        size_t edges = m->edges.count;
        uint32_t edge = edge_of(&m->edges, key, 2), exact = edge_of(&m->exact, key, 4);
        if (edge == RP_IDX_NONE || exact == RP_IDX_NONE)
            return -1;
        if (edge >= edges) /* the first child of the method is its loose match */
            m->edge_child[edge] = (uint32_t)n;
        m->exact_child[exact] = (uint32_t)n;
    }
    m->edge_count = m->edges.count;
    m->exact_count = m->exact.count;
    return 0;
}

/* The node of b that node `n` of t matches, whose parent matched `in_b`. */
static int match_node(matcher *m, const rp_calltree *t, const rp_profile *tp, uint32_t n, uint32_t *in_b)
{
    uint32_t f = t->nodes[n].frame;
    uint32_t key[4] = {in_b[t->nodes[n].parent], rp_method_id(&m->names, tp, f), tp->frames[f].start_line,
                       tp->frames[f].line};
    uint32_t exact = edge_of(&m->exact, key, 4);
    if (exact == RP_IDX_NONE)
        return -1;
    if (exact < m->exact_count) {
        in_b[n] = m->exact_child[exact];
        return 0;
    }
    uint32_t edge = edge_of(&m->edges, key, 2);
    if (edge == RP_IDX_NONE)
        return -1;
    if (edge < m->edge_count)
        in_b[n] = m->edge_child[edge];
    return 0;
}

int rp_calltree_match(const rp_calltree *t, const rp_profile *tp, const rp_calltree *b, const rp_profile *bp,
                      uint32_t *in_b)
{
    matcher m = {0};
    rp_method_ids_init(&m.names);
    rp_stack_table_init(&m.edges);
    rp_stack_table_init(&m.exact);
    int rc = index_edges(&m, b, bp);
    for (size_t n = 0; rc == 0 && n < t->node_count; n++) {
        in_b[n] = RP_IDX_NONE;
        if (n == 0)
            in_b[0] = b->node_count ? 0 : RP_IDX_NONE;
        else if (t->nodes[n].frame != RP_CALLTREE_OTHER && in_b[t->nodes[n].parent] != RP_IDX_NONE)
            rc = match_node(&m, t, tp, (uint32_t)n, in_b);
    }
    free(m.edge_child);
    free(m.exact_child);
    rp_method_ids_free(&m.names);
    rp_stack_table_free(&m.edges);
    rp_stack_table_free(&m.exact);
    return rc;
}

void rp_calltree_self(const rp_calltree *t, int64_t *self)
{
    for (size_t n = 0; n < t->node_count; n++)
        self[n] = t->nodes[n].total;
    for (size_t n = 1; n < t->node_count; n++)
        self[t->nodes[n].parent] -= t->nodes[n].total;
}
