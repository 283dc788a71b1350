/*
 * profile/encode/collapsed.c — collapsed stacks. See collapsed.h.
 *
 * Stacks are keyed by their labels only (as the gem does): samples whose
 * frames differ only in path, thread or label set add up on one line. A
 * frame with a line (rperf-analyze convert --lines) is written label:line.
 */
#include "collapsed.h"

#include <inttypes.h>
#include <stdlib.h>

#include "../../common/stack_table.h"
#include "../../common/vec.h"

int rp_collapsed_write(const rp_profile *p, rp_out *out, const rp_encode_opts *opts)
{
    (void)opts; /* the encoder shape of format.h; lines are chosen at loading */
    rp_stack_table rows; /* one per output row: (label, line) of each frame */
    rp_stack_table_init(&rows);
    int64_t *weights = NULL;
    size_t weights_cap = 0;
    uint32_t *key = NULL;
    size_t key_cap = 0;
    int rc = 0;
    for (size_t i = 0; i < p->samples.count && rc == 0; i++) {
        const rp_sample *s = &p->samples.samples[i];
        uint32_t depth;
        const uint32_t *frames = rp_stack_table_get(&p->stacks, s->stack, &depth);
        if (depth == 0)
            continue; /* nothing to draw (only hand-made files have these) */
        if (RP_VEC_RESERVE(key, key_cap, 2 * (size_t)depth) != 0) {
            rc = -1;
            break;
        }
        for (uint32_t d = 0; d < depth; d++) {
            key[2 * d] = p->frames[frames[d]].label;
            key[2 * d + 1] = p->frames[frames[d]].line;
        }
        size_t known = rows.count;
        uint32_t row = rp_stack_table_intern(&rows, key, 2 * depth);
        if (row == RP_IDX_NONE || RP_VEC_RESERVE(weights, weights_cap, rows.count) != 0) {
            rc = -1;
            break;
        }
        if (rows.count > known)
            weights[row] = 0; /* a stack seen for the first time */
        if (__builtin_add_overflow(weights[row], s->weight, &weights[row]))
            weights[row] = INT64_MAX;
    }
    for (size_t row = 0; row < rows.count && rc == 0; row++) {
        uint32_t depth;
        const uint32_t *pairs = rp_stack_table_get(&rows, (uint32_t)row, &depth);
        for (uint32_t d = depth / 2; d-- > 0;) {
            rp_out_puts(out, rp_profile_str(p, pairs[2 * d]));
            if (pairs[2 * d + 1])
                rp_out_printf(out, ":%u", pairs[2 * d + 1]);
            if (d)
                rp_out_write(out, ";", 1);
        }
        rp_out_printf(out, " %" PRId64 "\n", weights[row]);
    }
    free(weights);
    free(key);
    rp_stack_table_free(&rows);
    return rc;
}
