/*
 * profile/encode/timeline.c — the timeline table. See timeline.h.
 */
#include "timeline.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "../flatcum.h"
#include "../../common/numfmt.h"
#include "../../common/vec.h"
#include "../timewin.h"

int rp_timeline_add(rp_timeline *t, const rp_profile *one)
{
    rp_flatcum fc;
    if (RP_VEC_RESERVE(t->rows, t->cap, t->count + 1) != 0 || rp_flatcum_compute(one, &fc) != 0)
        return -1;
    rp_timeline_row *r = &t->rows[t->count++];
    *r = (rp_timeline_row){
        .start_ns = one->meta.start_time_ns,
        .duration_ns = one->meta.duration_ns,
        .pid = one->meta.pid,
        .part = one->meta.part,
        .sampled_ns = fc.total,
    };
    if (fc.flat_count > 0) {
        r->top_ns = fc.flat[0].weight;
        rp_frame_name(one, &one->frames[fc.flat[0].frame], r->top, sizeof(r->top));
    }
    rp_flatcum_free(&fc);
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
