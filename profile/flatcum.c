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

static rp_name_weight *entry_of(rp_by_name *b, const char *name)
{
    uint32_t id = rp_strtab_intern(&b->names, name, strlen(name));
    if (id == RP_IDX_NONE || RP_VEC_RESERVE(b->list, b->cap, (size_t)id + 1) != 0)
        return NULL;
    for (; b->count <= id; b->count++)
        b->list[b->count] = (rp_name_weight){0};
    return &b->list[id];
}

static int add_by_name(rp_by_name *b, const rp_profile *p, const rp_frame_weight *fw, bool self)
{
    rp_name_weight *e = entry_of(b, rp_profile_str(p, p->frames[fw->frame].label));
    if (!e)
        return -1;
    if (self)
        e->self += fw->weight;
    else
        e->total += fw->weight;
    return 0;
}

int rp_by_name_compute(const rp_profile *p, rp_by_name *out)
{
    *out = (rp_by_name){0};
    rp_strtab_init(&out->names);
    rp_flatcum fc;
    if (rp_flatcum_compute(p, &fc) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < fc.flat_count && rc == 0; i++)
        rc = add_by_name(out, p, &fc.flat[i], true);
    for (size_t i = 0; i < fc.cum_count && rc == 0; i++)
        rc = add_by_name(out, p, &fc.cum[i], false);
    out->total = fc.total;
    rp_flatcum_free(&fc);
    /* the names stay where they are now that every one is interned */
    for (size_t i = 0; i < out->count && rc == 0; i++)
        out->list[i].name = rp_strtab_get(&out->names, (uint32_t)i, NULL);
    return rc;
}

void rp_by_name_free(rp_by_name *b)
{
    rp_strtab_free(&b->names);
    free(b->list);
    *b = (rp_by_name){0};
}

const rp_name_weight *rp_by_name_find(const rp_by_name *b, const char *name)
{
    uint32_t id = rp_strtab_find(&b->names, name, strlen(name));
    return id == RP_IDX_NONE ? NULL : &b->list[id];
}

static int self_descending(const void *a, const void *b)
{
    const rp_name_weight *x = a, *y = b;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    return strcmp(x->name, y->name);
}

rp_name_weight *rp_by_name_by_self(const rp_by_name *b, size_t *count)
{
    rp_name_weight *sorted = rp_alloc_array(b->count + 1, sizeof(*sorted));
    if (!sorted)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < b->count; i++)
        if (b->list[i].self > 0)
            sorted[n++] = b->list[i];
    qsort(sorted, n, sizeof(*sorted), self_descending);
    *count = n;
    return sorted;
}
