/*
 * profile/encode/growth.c — growing allocation sites. See growth.h.
 */
#include "growth.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/json_writer.h"
#include "../../common/numfmt.h"
#include "../../common/vec.h"
#include "../schema.h"

/* The innermost frame of a stack that is Ruby code, else its leaf. */
static uint32_t site_of(const rp_profile *merged, uint32_t stack, uint32_t c_path)
{
    uint32_t depth;
    const uint32_t *frames = rp_stack_table_get(&merged->stacks, stack, &depth);
    for (uint32_t d = 0; d < depth; d++)
        if (merged->frames[frames[d]].path != c_path)
            return frames[d];
    return depth ? frames[0] : RP_IDX_NONE;
}

static int note_part(rp_growth *g, int64_t part, int64_t end_ns)
{
    for (size_t i = 0; i < g->part_count; i++)
        if (g->parts[i].part == part) {
            if (end_ns > g->parts[i].end_ns)
                g->parts[i].end_ns = end_ns;
            return 0;
        }
    if (RP_VEC_RESERVE(g->parts, g->parts_cap, g->part_count + 1) != 0)
        return -1;
    g->parts[g->part_count++] = (rp_growth_part){part, end_ns};
    return 0;
}

int rp_growth_add(rp_growth *g, const rp_profile *merged, const rp_merge_pending *file)
{
    const rp_meta *m = &file->meta;
    if (m->alloc_rate <= 0) {
        g->files_without_memory++;
        return 0;
    }
    if (m->alloc_rate > g->alloc_rate)
        g->alloc_rate = m->alloc_rate;
    if (note_part(g, m->part, m->start_time_ns + m->duration_ns) != 0)
        return -1;
    uint32_t c_path = rp_strtab_find(&merged->strings, RP_C_METHOD_PATH, strlen(RP_C_METHOD_PATH));
    const rp_sample *samples = file->samples[RP_MEASURE_RETAINED_OBJECTS];
    for (size_t i = 0; i < file->counts[RP_MEASURE_RETAINED_OBJECTS]; i++) {
        uint32_t site = site_of(merged, samples[i].stack, c_path);
        if (site == RP_IDX_NONE)
            continue;
        if (RP_VEC_RESERVE(g->points, g->cap, g->count + 1) != 0)
            return -1;
        g->points[g->count++] = (rp_growth_point){m->part, site, samples[i].weight};
    }
    return 0;
}

static int by_part(const void *a, const void *b)
{
    const rp_growth_part *x = a, *y = b;
    return (x->part > y->part) - (x->part < y->part);
}

static int by_site(const void *a, const void *b)
{
    const rp_growth_point *x = a, *y = b;
    return (x->site > y->site) - (x->site < y->site);
}

static int heaviest_slope(const void *a, const void *b)
{
    const rp_growth_row *x = a, *y = b;
    if (x->per_minute != y->per_minute)
        return x->per_minute > y->per_minute ? -1 : 1;
    return (x->site > y->site) - (x->site < y->site);
}

static size_t part_index(const rp_growth *g, int64_t part)
{
    for (size_t i = 0; i < g->part_count; i++)
        if (g->parts[i].part == part)
            return i;
    return 0;
}

/* The figures of one site from its objects at each part (`y`, in part
 * order) and the parts' end times in minutes (`x`). */
static rp_growth_row row_of(uint32_t site, const double *x, const int64_t *y, size_t n)
{
    double mx = 0, my = 0, sxy = 0, sxx = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += (double)y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    for (size_t i = 0; i < n; i++) {
        sxy += (x[i] - mx) * ((double)y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    rp_growth_row r = {.site = site, .per_minute = sxx > 0 ? sxy / sxx : 0, .first = y[0], .last = y[n - 1]};
    for (size_t i = 1; i < n; i++)
        r.grew += y[i] > y[i - 1];
    return r;
}

long rp_growth_rows(rp_growth *g, rp_growth_row **rows)
{
    size_t n = g->part_count;
    *rows = NULL;
    qsort(g->parts, n, sizeof(*g->parts), by_part);
    qsort(g->points, g->count, sizeof(*g->points), by_site);
    double *x = rp_alloc_array(n ? n : 1, sizeof(*x));
    int64_t *y = rp_alloc_array(n ? n : 1, sizeof(*y));
    *rows = rp_alloc_array(g->count ? g->count : 1, sizeof(**rows));
    if (!x || !y || !*rows) {
        free(x);
        free(y);
        free(*rows);
        *rows = NULL;
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = (double)(g->parts[i].end_ns - g->parts[0].end_ns) / 60e9;
    long count = 0;
    for (size_t i = 0; i < g->count;) {
        uint32_t site = g->points[i].site;
        memset(y, 0, n * sizeof(*y));
        for (; i < g->count && g->points[i].site == site; i++)
            rp_add_saturating(&y[part_index(g, g->points[i].part)], g->points[i].objects);
        rp_growth_row r = row_of(site, x, y, n);
        if (r.per_minute > 0 && r.last > r.first)
            (*rows)[count++] = r;
    }
    qsort(*rows, (size_t)count, sizeof(**rows), heaviest_slope);
    free(x);
    free(y);
    return count;
}

static void write_json(rp_out *out, const rp_profile *merged, const rp_growth *g, const rp_growth_row *rows,
                       size_t count)
{
    rp_json j;
    char name[RP_FRAME_NAME_MAX];
    rp_json_init(&j, out);
    rp_json_begin_array(&j);
    for (size_t i = 0; i < count; i++) {
        rp_json_begin_object(&j);
        rp_json_member_cstring(&j, "site", rp_frame_name(merged, &merged->frames[rows[i].site], name, sizeof(name)));
        rp_json_key(&j, "objects_per_minute");
        rp_json_double(&j, rows[i].per_minute);
        rp_json_member_int(&j, "first", rows[i].first);
        rp_json_member_int(&j, "last", rows[i].last);
        rp_json_member_int(&j, "grew_parts", (int64_t)rows[i].grew);
        rp_json_member_int(&j, "parts", (int64_t)g->part_count);
        rp_json_end_object(&j);
    }
    rp_json_end_array(&j);
    rp_out_write(out, "\n", 1);
}

static void write_table(rp_out *out, const rp_profile *merged, const rp_growth *g, const rp_growth_row *rows,
                        size_t count)
{
    char slope[RP_NUMFMT_MAX + 1], first[RP_NUMFMT_MAX], last[RP_NUMFMT_MAX], grew[32], name[RP_FRAME_NAME_MAX];
    double minutes = (double)(g->parts[g->part_count - 1].end_ns - g->parts[0].end_ns) / 60e9;
    rp_out_printf(out, "Retained objects by allocation site, %zu parts over %.1f min (1 in %" PRId64
                       " allocations sampled); the sites that grew, fastest first:\n\n",
                  g->part_count, minutes, g->alloc_rate);
    if (count == 0) {
        rp_out_puts(out, "  (no site's live objects grew)\n");
        return;
    }
    rp_out_printf(out, "  %14s %12s %12s %8s  %s\n", "objects/min", "first part", "last part", "grew in", "site");
    for (size_t i = 0; i < count; i++) {
        slope[0] = '+';
        rp_fmt_round(rows[i].per_minute, slope + 1);
        snprintf(grew, sizeof(grew), "%zu/%zu", rows[i].grew, g->part_count - 1);
        rp_out_printf(out, "  %14s %12s %12s %8s  %s\n", slope, rp_fmt_int(rows[i].first, first),
                      rp_fmt_int(rows[i].last, last), grew,
                      rp_frame_name(merged, &merged->frames[rows[i].site], name, sizeof(name)));
    }
}

int rp_growth_write(rp_growth *g, const rp_profile *merged, rp_out *out, int top, bool json)
{
    rp_growth_row *rows;
    long count = rp_growth_rows(g, &rows);
    if (count < 0)
        return -1;
    size_t shown = top >= 0 && count > top ? (size_t)top : (size_t)count;
    if (json)
        write_json(out, merged, g, rows, shown);
    else
        write_table(out, merged, g, rows, shown);
    free(rows);
    return 0;
}

void rp_growth_free(rp_growth *g)
{
    free(g->points);
    free(g->parts);
    *g = (rp_growth){0};
}
