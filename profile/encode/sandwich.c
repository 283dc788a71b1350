/*
 * profile/encode/sandwich.c — one method's callers and callees. See
 * sandwich.h.
 */
#include "sandwich.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/strtab.h"
#include "../../common/vec.h"
#include "../diag.h"
#include "../measure.h"
#include "../../common/stack_table.h"

/* A node of one of the two trees: a method name under its parent. */
typedef struct node {
    uint32_t name, parent, first_child, next_sibling;
    int64_t total, self;
} node;

typedef struct tree {
    node *nodes; /* node 0: the method itself */
    size_t count, cap;
} tree;

static uint32_t child_of(tree *t, uint32_t parent, uint32_t name)
{
    for (uint32_t c = t->nodes[parent].first_child; c != RP_IDX_NONE; c = t->nodes[c].next_sibling)
        if (t->nodes[c].name == name)
            return c;
    if (RP_VEC_RESERVE(t->nodes, t->cap, t->count + 1) != 0)
        return RP_IDX_NONE;
    uint32_t id = (uint32_t)t->count++;
    t->nodes[id] = (node){name, parent, RP_IDX_NONE, t->nodes[parent].first_child, 0, 0};
    t->nodes[parent].first_child = id;
    return id;
}

static int tree_init(tree *t, uint32_t name)
{
    *t = (tree){0};
    if (RP_VEC_RESERVE(t->nodes, t->cap, 1) != 0)
        return -1;
    t->nodes[0] = (node){name, RP_IDX_NONE, RP_IDX_NONE, RP_IDX_NONE, 0, 0};
    t->count = 1;
    return 0;
}

/* Frame names, interned: the same method under several frame ids (lines)
 * is one. */
typedef struct names {
    rp_strtab tab;
    uint32_t *of_frame; /* frame id -> name id */
} names;

static int name_frames(const rp_profile *p, names *n)
{
    rp_strtab_init(&n->tab);
    n->of_frame = rp_alloc_array(p->frame_count ? p->frame_count : 1, sizeof(uint32_t));
    if (!n->of_frame)
        return -1;
    char buf[RP_FRAME_NAME_MAX];
    for (size_t f = 0; f < p->frame_count; f++) {
        rp_frame_name(p, &p->frames[f], buf, sizeof(buf));
        if ((n->of_frame[f] = rp_strtab_intern(&n->tab, buf, strlen(buf))) == RP_IDX_NONE)
            return -1;
    }
    return 0;
}

/* The name `method` designates: the whole of a name, or a part of only
 * one. RP_IDX_NONE (said) when none or several. */
static uint32_t find_method(const names *n, const char *method)
{
    uint32_t found = RP_IDX_NONE, matches = 0;
    for (uint32_t i = 0; i < n->tab.count; i++) {
        const char *name = rp_strtab_get(&n->tab, i, NULL);
        if (strcmp(name, method) == 0)
            return i;
        if (strstr(name, method) && matches++ == 0)
            found = i;
    }
    if (matches == 1)
        return found;
    if (matches == 0)
        rp_error("report: no method's name holds '%s'", method);
    else
        rp_error("report: %u methods' names hold '%s' (one is %s); give more of the name", matches, method,
                 rp_strtab_get(&n->tab, found, NULL));
    return RP_IDX_NONE;
}

/* Adds every sample through `method` to the two trees. */
static int fill(const rp_profile *p, const names *n, uint32_t method, tree *up, tree *down)
{
    for (size_t i = 0; i < p->samples.count; i++) {
        const rp_sample *s = &p->samples.samples[i];
        uint32_t depth;
        const uint32_t *frames = rp_stack_table_get(&p->stacks, s->stack, &depth);
        int outer = -1; /* frames are leaf first: the outermost call is the last match */
        for (uint32_t d = 0; d < depth; d++)
            if (n->of_frame[frames[d]] == method)
                outer = (int)d;
        if (outer < 0)
            continue;
        rp_add_saturating(&up->nodes[0].total, s->weight);
        rp_add_saturating(&down->nodes[0].total, s->weight);
        uint32_t at = 0;
        for (uint32_t d = (uint32_t)outer + 1; d < depth; d++) {
            if ((at = child_of(up, at, n->of_frame[frames[d]])) == RP_IDX_NONE)
                return -1;
            rp_add_saturating(&up->nodes[at].total, s->weight);
        }
        at = 0;
        for (int d = outer - 1; d >= 0; d--) {
            if ((at = child_of(down, at, n->of_frame[frames[d]])) == RP_IDX_NONE)
                return -1;
            rp_add_saturating(&down->nodes[at].total, s->weight);
        }
        rp_add_saturating(&down->nodes[at].self, s->weight);
    }
    up->nodes[0].self = down->nodes[0].self;
    return 0;
}

static const tree *sorting_tree;

static int heavier(const void *a, const void *b)
{
    const node *x = &sorting_tree->nodes[*(const uint32_t *)a], *y = &sorting_tree->nodes[*(const uint32_t *)b];
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

static void write_node(rp_out *out, const rp_profile *p, const names *n, const tree *t, uint32_t id, int depth,
                       bool with_self)
{
    const node *nd = &t->nodes[id];
    int64_t whole = t->nodes[0].total;
    char total[RP_MEASURE_TEXT_MAX], self[RP_MEASURE_TEXT_MAX];
    rp_measure_format(p->measure, nd->total, total);
    rp_measure_format(p->measure, nd->self, self);
    rp_out_printf(out, "  %12s %6.1f%%", total, whole > 0 ? (double)nd->total * 100.0 / (double)whole : 0.0);
    if (with_self)
        rp_out_printf(out, " %12s", nd->self ? self : "");
    rp_out_printf(out, "  %*s%s\n", depth * 2, "", rp_strtab_get(&n->tab, nd->name, NULL));
    size_t children = 0;
    for (uint32_t c = nd->first_child; c != RP_IDX_NONE; c = t->nodes[c].next_sibling)
        children++;
    uint32_t order[children ? children : 1];
    size_t k = 0;
    for (uint32_t c = nd->first_child; c != RP_IDX_NONE; c = t->nodes[c].next_sibling)
        order[k++] = c;
    sorting_tree = t;
    qsort(order, children, sizeof(*order), heavier);
    for (size_t i = 0; i < children; i++)
        write_node(out, p, n, t, order[i], depth + 1, with_self);
}

static void write_tree(rp_out *out, const rp_profile *p, const names *n, const tree *t, const char *what,
                       bool with_self)
{
    const char *unit = rp_measure_short_unit(p->measure);
    rp_out_printf(out, "%s of %s (each row's share: of the method's total; recursion counted once)\n\n", what,
                  rp_strtab_get(&n->tab, t->nodes[0].name, NULL));
    char total[24], self[24];
    snprintf(total, sizeof(total), "total%s%s", *unit ? " " : "", unit);
    snprintf(self, sizeof(self), "self%s%s", *unit ? " " : "", unit);
    rp_out_printf(out, "  %12s %7s", total, "share");
    if (with_self)
        rp_out_printf(out, " %12s", self);
    rp_out_printf(out, "  method\n");
    write_node(out, p, n, t, 0, 0, with_self);
}

int rp_sandwich_write(const rp_profile *p, rp_out *out, const char *method, bool callers, bool callees)
{
    names n = {0};
    tree up = {0}, down = {0};
    int rc = -1;
    if (name_frames(p, &n) != 0)
        goto out;
    uint32_t m = find_method(&n, method);
    if (m == RP_IDX_NONE) {
        rc = 1;
        goto out;
    }
    if (tree_init(&up, m) != 0 || tree_init(&down, m) != 0 || fill(p, &n, m, &up, &down) != 0)
        goto out;
    if (callers)
        write_tree(out, p, &n, &up, "Callers", false);
    if (callers && callees)
        rp_out_puts(out, "\n");
    if (callees)
        write_tree(out, p, &n, &down, "Callees", true);
    rc = 0;
out:
    free(up.nodes);
    free(down.nodes);
    free(n.of_frame);
    rp_strtab_free(&n.tab);
    return rc;
}
