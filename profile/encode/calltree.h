/*
 * profile/encode/calltree.h — a profile's stacks as one merged call tree.
 *
 * Owns: the tree the viewer draws (html.c): one node per distinct path of
 * frames from the root, each with its total weight, parents before their
 * children; and the weight ending at each node, kept apart per thread and
 * label set so that the page can still filter by label, thread and
 * process. Nodes lighter than a threshold (far below a pixel of any flame
 * graph) are folded into one "(other)" node per parent, so that the size
 * of the tree follows what can be seen rather than the number of stacks;
 * the threshold rises further when a node budget asks for it (profiles
 * whose samples are all distinct deep stacks keep one long chain each).
 */
#ifndef RPERF_PROFILE_CALLTREE_H
#define RPERF_PROFILE_CALLTREE_H

#include <stddef.h>
#include <stdint.h>

#include "../profile.h"
#include "../../common/sample_table.h"

/* The frame of a node that stands for its parent's folded children. */
#define RP_CALLTREE_OTHER (UINT32_MAX - 1)
/* The frame of node 0, the root (above every stack's bottom frame). */
#define RP_CALLTREE_ROOT UINT32_MAX

typedef struct rp_calltree_node {
    uint32_t parent; /* node id; RP_IDX_NONE for the root */
    uint32_t frame;  /* frame id in the profile, or RP_CALLTREE_OTHER / _ROOT */
    int64_t total;   /* weight of every sample through this node, ns */
} rp_calltree_node;

typedef struct rp_calltree {
    rp_calltree_node *nodes; /* node 0 is the root; a parent's id < its children's */
    size_t node_count, nodes_cap;
    /* Weight ending at each node: "stack" is the node id, then the
     * sample's thread_seq and label set, summed over samples. */
    rp_sample_table leaves;
    int64_t fold_below;    /* the threshold used, ns */
    size_t folded_nodes;   /* subtrees folded into "(other)" nodes */
    int64_t folded_weight; /* their weight, ns */
} rp_calltree;

/* Builds the tree of `p`'s samples; subtrees whose total is below
 * `min_weight` ns are folded (0: none is). With `max_nodes` > 0 the
 * threshold is raised, when needed, to the lowest that keeps at most
 * about that many nodes ("(other)" nodes aside). Returns 0, or -1 when
 * out of memory (the tree is then freed). */
int rp_calltree_build(const rp_profile *p, int64_t min_weight, size_t max_nodes, rp_calltree *t);
void rp_calltree_free(rp_calltree *t);

/* Methods known across profiles: one id per method name (label and
 * path), whichever profile's frame names it. */
typedef struct rp_method_ids {
    rp_strtab strings;    /* labels and paths */
    rp_stack_table pairs; /* (label, path) string pairs: a method's id */
} rp_method_ids;

void rp_method_ids_init(rp_method_ids *ids);
void rp_method_ids_free(rp_method_ids *ids);
/* The id of the method of `frame` of `p` (ids count up from 0 as
 * methods are met), or RP_IDX_NONE when out of memory. */
uint32_t rp_method_id(rp_method_ids *ids, const rp_profile *p, uint32_t frame);

/* For each node of `t` (a tree of `tp`), the node of `b` (a tree of
 * `bp`, another profile) at the same path of method names (label and
 * path), or RP_IDX_NONE when `b` has none or the node is an "(other)"
 * one: how a differential flame graph compares a target with its base.
 * Where a parent has several children of one method (two blocks of one
 * method, lines recorded), each is matched by its frame (first line and
 * line) first, by its method alone when that finds none.
 * `out` has t->node_count entries. Returns 0, or -1 when out of memory. */
int rp_calltree_match(const rp_calltree *t, const rp_profile *tp, const rp_calltree *b, const rp_profile *bp,
                      uint32_t *out);

/* Each node's self weight (its total less its children's) into `self`,
 * t->node_count entries. */
void rp_calltree_self(const rp_calltree *t, int64_t *self);

#endif
