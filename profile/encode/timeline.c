/*
 * profile/encode/timeline.c — the timeline table. See timeline.h.
 */
#include "timeline.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../common/numfmt.h"
#include "../../common/vec.h"
#include "../timewin.h"

/* The heaviest leaf frame of the file's samples (ids of `merged`), into
 * the row. Returns 0 or -1 (out of memory). */
static int find_top(rp_timeline_row *r, const rp_profile *merged, const rp_merge_pending *file)
{
    int64_t *self = rp_calloc_array(merged->frame_count, sizeof(*self));
    if (!self)
        return -1;
    uint32_t top = RP_IDX_NONE;
    for (size_t i = 0; i < file->counts[RP_MEASURE_TIME]; i++) {
        const rp_sample *s = &file->samples[RP_MEASURE_TIME][i];
        uint32_t depth;
        const uint32_t *frames = rp_stack_table_get(&merged->stacks, s->stack, &depth);
        rp_add_saturating(&r->sampled_ns, s->weight);
        if (depth == 0)
            continue;
        rp_add_saturating(&self[frames[0]], s->weight);
        if (top == RP_IDX_NONE || self[frames[0]] > self[top] ||
            (self[frames[0]] == self[top] && frames[0] < top))
            top = frames[0];
    }
    if (top != RP_IDX_NONE && self[top] > 0) {
        r->top_ns = self[top];
        rp_frame_name(merged, &merged->frames[top], r->top, sizeof(r->top));
    }
    free(self);
    return 0;
}

int rp_timeline_add(rp_timeline *t, const rp_profile *merged, const rp_merge_pending *file)
{
    if (RP_VEC_RESERVE(t->rows, t->cap, t->count + 1) != 0)
        return -1;
    rp_timeline_row *r = &t->rows[t->count];
    *r = (rp_timeline_row){
        .start_ns = file->meta.start_time_ns,
        .duration_ns = file->meta.duration_ns,
        .pid = file->meta.pid,
        .part = file->meta.part,
    };
    if (find_top(r, merged, file) != 0)
        return -1;
    t->count++;
    return 0;
}

static int earliest_first(const void *a, const void *b)
{
    const rp_timeline_row *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int rp_timeline_write(rp_timeline *t, rp_out *out)
{
    qsort(t->rows, t->count, sizeof(*t->rows), earliest_first);
    rp_out_printf(out, "Timeline: %zu part%s, in time order (local time)\n\n", t->count,
                  t->count == 1 ? "" : "s");
    rp_out_printf(out, " %-19s %10s %8s %5s %13s  %s\n", "start", "duration", "pid", "part",
                  "sampled", "top method by self time");
    char when[32], ms[RP_NUMFMT_MAX];
    for (size_t i = 0; i < t->count; i++) {
        const rp_timeline_row *r = &t->rows[i];
        rp_out_printf(out, " %-19s %8.1f s %8" PRId64 " %5" PRId64 " %10s ms  ",
                      rp_time_format(r->start_ns, when, sizeof(when)),
                      (double)r->duration_ns / 1e9, r->pid, r->part, rp_fmt_ms(r->sampled_ns, ms));
        if (r->top[0])
            rp_out_printf(out, "%s %.1f%%\n", r->top,
                          r->sampled_ns > 0 ? (double)r->top_ns * 100.0 / (double)r->sampled_ns : 0.0);
        else
            rp_out_puts(out, "(no samples)\n");
    }
    return 0;
}

void rp_timeline_free(rp_timeline *t)
{
    free(t->rows);
    *t = (rp_timeline){0};
}
