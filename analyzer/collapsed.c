/*
 * analyzer/collapsed.c — collapsed stacks. See collapsed.h.
 *
 * Stacks are keyed by their labels only (as the gem does): samples whose
 * frames differ only in path, thread or label set add up on one line.
 */
#include "collapsed.h"

#include <inttypes.h>
#include <stdlib.h>

#include "../common/stack_table.h"
#include "../common/vec.h"

int rp_collapsed_write(const rp_profile *p, rp_out *out)
{
    rp_stack_table lines;
    rp_stack_table_init(&lines);
    int64_t *weights = NULL;
    size_t weights_cap = 0;
    uint32_t *labels = NULL;
    size_t labels_cap = 0;
    int rc = 0;
    for (size_t i = 0; i < p->samples.count && rc == 0; i++) {
        const rp_sample *s = &p->samples.samples[i];
        uint32_t depth;
        const uint32_t *frames = rp_stack_table_get(&p->stacks, s->stack, &depth);
        if (depth == 0)
            continue; /* nothing to draw (only hand-made files have these) */
        if (RP_VEC_RESERVE(labels, labels_cap, depth) != 0) {
            rc = -1;
            break;
        }
        for (uint32_t d = 0; d < depth; d++)
            labels[d] = p->frames[frames[d]].label;
        size_t known = lines.count;
        uint32_t line = rp_stack_table_intern(&lines, labels, depth);
        if (line == RP_IDX_NONE || RP_VEC_RESERVE(weights, weights_cap, lines.count) != 0) {
            rc = -1;
            break;
        }
        if (lines.count > known)
            weights[line] = 0; /* a stack seen for the first time */
        if (__builtin_add_overflow(weights[line], s->weight, &weights[line]))
            weights[line] = INT64_MAX;
    }
    for (size_t line = 0; line < lines.count && rc == 0; line++) {
        uint32_t depth;
        const uint32_t *ids = rp_stack_table_get(&lines, (uint32_t)line, &depth);
        for (uint32_t d = depth; d-- > 0;) {
            rp_out_puts(out, rp_profile_str(p, ids[d]));
            if (d)
                rp_out_write(out, ";", 1);
        }
        rp_out_printf(out, " %" PRId64 "\n", weights[line]);
    }
    free(weights);
    free(labels);
    rp_stack_table_free(&lines);
    return rc;
}
