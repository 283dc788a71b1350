/*
 * profile/flatcum.c — flat and cumulative tables. See flatcum.h.
 * Linear in the number of frames over all samples, plus one sort.
 */
#include "flatcum.h"

#include <stdlib.h>
#include <string.h>
#include "../common/vec.h"

static int by_weight_desc(const void *a, const void *b)
{
    const rp_frame_weight *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    return x->frame < y->frame ? -1 : x->frame > y->frame; /* stable output */
}

/* Keeps the frames with weight, sorted; takes ownership of `all`. */
static rp_frame_weight *ranked(int64_t *all, size_t n, size_t *count)
{
    rp_frame_weight *list = rp_alloc_array(n, sizeof(*list));
    *count = 0;
    if (!list)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (all[i] > 0)
            list[(*count)++] = (rp_frame_weight){(uint32_t)i, all[i]};
    qsort(list, *count, sizeof(*list), by_weight_desc);
    return list;
}

int rp_flatcum_compute(const rp_profile *p, rp_flatcum *out)
{
    size_t n = p->frame_count ? p->frame_count : 1;
    int64_t *flat = calloc(n, sizeof(int64_t));
    int64_t *cum = calloc(n, sizeof(int64_t));
    size_t *last_seen = rp_alloc_array(n, sizeof(size_t)); /* sample index + 1 */
    memset(out, 0, sizeof(*out));
    int rc = -1;
    if (!flat || !cum || !last_seen)
        goto done;
    memset(last_seen, 0, n * sizeof(size_t));
    for (size_t i = 0; i < p->samples.count; i++) {
        const rp_sample *s = &p->samples.samples[i];
        uint32_t depth;
        const uint32_t *frames = rp_stack_table_get(&p->stacks, s->stack, &depth);
        rp_add_saturating(&out->total, s->weight);
        if (depth > 0)
            rp_add_saturating(&flat[frames[0]], s->weight);
        for (uint32_t d = 0; d < depth; d++) {
            if (last_seen[frames[d]] == i + 1)
                continue; /* recursion: once per sample */
            last_seen[frames[d]] = i + 1;
            rp_add_saturating(&cum[frames[d]], s->weight);
        }
    }
    out->flat = ranked(flat, p->frame_count, &out->flat_count);
    out->cum = ranked(cum, p->frame_count, &out->cum_count);
    rc = out->flat && out->cum ? 0 : -1;
done:
    free(flat);
    free(cum);
    free(last_seen);
    if (rc != 0)
        rp_flatcum_free(out);
    return rc;
}

void rp_flatcum_free(rp_flatcum *fc)
{
    free(fc->flat);
    free(fc->cum);
    memset(fc, 0, sizeof(*fc));
}
