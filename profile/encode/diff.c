/*
 * profile/encode/diff.c — base against target. See diff.h.
 *
 * The two profiles have string and frame tables of their own, so methods
 * are matched by name ("label (path)", with the line when loading kept
 * lines), through one table of names shared by both sides.
 */
#include "diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../flatcum.h"
#include "../../common/numfmt.h"
#include "../../common/vec.h"

static int grow_sides(rp_diff *d, size_t count)
{
    if (count <= d->names_cap)
        return 0;
    size_t cap = d->names_cap ? d->names_cap : 64;
    while (cap < count)
        cap *= 2;
    int64_t **arrays[] = {&d->base.flat, &d->base.cum, &d->target.flat, &d->target.cum};
    for (size_t i = 0; i < 4; i++) {
        int64_t *grown = realloc(*arrays[i], cap * sizeof(int64_t));
        if (!grown)
            return -1;
        memset(grown + d->names_cap, 0, (cap - d->names_cap) * sizeof(int64_t));
        *arrays[i] = grown;
    }
    d->names_cap = cap;
    return 0;
}

/* Adds each row's weight to `into` at the row's method name. */
static int add_rows(rp_diff *d, const rp_profile *p, const rp_frame_weight *rows, size_t count,
                    int64_t **into)
{
    char name[RP_FRAME_NAME_MAX];
    for (size_t i = 0; i < count; i++) {
        rp_frame_name(p, &p->frames[rows[i].frame], name, sizeof(name));
        uint32_t id = rp_strtab_intern(&d->names, name, strlen(name));
        if (id == RP_IDX_NONE || grow_sides(d, d->names.count) != 0)
            return -1;
        rp_add_saturating(&(*into)[id], rows[i].weight);
    }
    return 0;
}

static int add_side(rp_diff *d, const rp_profile *p, rp_diff_side *side)
{
    rp_flatcum fc;
    if (rp_flatcum_compute(p, &fc) != 0)
        return -1;
    side->total = fc.total;
    int rc = add_rows(d, p, fc.flat, fc.flat_count, &side->flat) == 0 &&
                     add_rows(d, p, fc.cum, fc.cum_count, &side->cum) == 0
                 ? 0
                 : -1;
    rp_flatcum_free(&fc);
    return rc;
}

int rp_diff_compute(const rp_profile *base, const rp_profile *target, rp_diff *d)
{
    *d = (rp_diff){0};
    rp_strtab_init(&d->names);
    d->measure = base->measure;
    d->base_mode = base->meta.mode;
    d->target_mode = target->meta.mode;
    d->base_processes = base->meta.process_count;
    d->target_processes = target->meta.process_count;
    if (add_side(d, base, &d->base) != 0 || add_side(d, target, &d->target) != 0) {
        rp_diff_free(d);
        return -1;
    }
    return 0;
}

void rp_diff_free(rp_diff *d)
{
    rp_strtab_free(&d->names);
    free(d->base.flat);
    free(d->base.cum);
    free(d->target.flat);
    free(d->target.cum);
    *d = (rp_diff){0};
}

/* --- the text table ------------------------------------------------------------ */

typedef struct diff_row {
    uint32_t name;
    double base, target, delta; /* ms, or % of each side's total */
} diff_row;

static int by_change(const void *a, const void *b)
{
    const diff_row *x = a, *y = b;
    double dx = fabs(x->delta), dy = fabs(y->delta);
    if (dx != dy)
        return dx > dy ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

/* Weights shown: milliseconds for time, objects or bytes as they are. */
static double scale_of(const rp_diff *d)
{
    return d->measure == RP_MEASURE_TIME ? 1e6 : 1.0;
}

static double value_of(const rp_diff *d, int64_t w, int64_t total, bool normalize)
{
    if (!normalize)
        return (double)w / scale_of(d);
    return total > 0 ? (double)w * 100.0 / (double)total : 0.0;
}

static const char *amount(const rp_diff *d, double v, char buf[RP_NUMFMT_MAX])
{
    return rp_measure_format(d->measure, (int64_t)llround(v * scale_of(d)), buf);
}

/* "+1,234.5" with the sign always shown (buf: RP_NUMFMT_MAX + 1 bytes). */
static const char *signed_number(const rp_diff *d, double v, char buf[RP_NUMFMT_MAX + 1])
{
    buf[0] = v < 0 ? '-' : '+';
    amount(d, fabs(v), buf + 1);
    return buf;
}

/* The unit word of the tables' columns and totals. */
static const char *unit_of(const rp_diff *d)
{
    return d->measure == RP_MEASURE_TIME ? "ms" : rp_measures[d->measure].unit;
}

static void write_row(rp_out *out, const rp_diff *d, const diff_row *r, const int64_t *base_ns,
                      const int64_t *target_ns)
{
    char delta[RP_NUMFMT_MAX + 1], base[RP_NUMFMT_MAX], target[RP_NUMFMT_MAX], change[32];
    amount(d, r->base, base);
    amount(d, r->target, target);
    if (base_ns[r->name] == 0)
        snprintf(change, sizeof(change), "new");
    else if (target_ns[r->name] == 0)
        snprintf(change, sizeof(change), "gone");
    else
        snprintf(change, sizeof(change), "%+.1f%%", r->base != 0 ? r->delta * 100.0 / r->base : 0.0);
    rp_out_printf(out, "  %12s %12s %12s %9s  %s\n", signed_number(d, r->delta, delta), base, target, change,
                  rp_strtab_get(&d->names, r->name, NULL));
}

static int write_table(rp_out *out, const rp_diff *d, const char *title, const int64_t *base_ns,
                       const int64_t *target_ns, bool normalize, int top)
{
    size_t count = 0;
    diff_row *rows = rp_alloc_array(d->names.count, sizeof(*rows));
    if (!rows)
        return -1;
    for (size_t i = 0; i < d->names.count; i++) {
        if (base_ns[i] == 0 && target_ns[i] == 0)
            continue;
        diff_row r = {(uint32_t)i, value_of(d, base_ns[i], d->base.total, normalize),
                      value_of(d, target_ns[i], d->target.total, normalize), 0};
        r.delta = r.target - r.base;
        rows[count++] = r;
    }
    qsort(rows, count, sizeof(*rows), by_change);
    rp_out_printf(out, " %s, by absolute change:\n", title);
    char heads[3][32];
    snprintf(heads[0], sizeof(heads[0]), "delta %s", normalize ? "%pt" : unit_of(d));
    snprintf(heads[1], sizeof(heads[1]), "base %s", normalize ? "%" : unit_of(d));
    snprintf(heads[2], sizeof(heads[2]), "target %s", normalize ? "%" : unit_of(d));
    rp_out_printf(out, "  %12s %12s %12s %9s  %s\n", heads[0], heads[1], heads[2], "change", "method");
    for (size_t i = 0; i < count && (top < 0 || i < (size_t)top); i++)
        write_row(out, d, &rows[i], base_ns, target_ns);
    free(rows);
    return 0;
}

static void write_side(rp_out *out, const rp_diff *d, const char *title, int64_t total, rp_mode mode,
                       int64_t processes)
{
    char ms[RP_NUMFMT_MAX];
    if (d->measure == RP_MEASURE_TIME)
        rp_out_printf(out, "%-8s %s ms (%s)", title, rp_fmt_ms(total, ms), rp_mode_name(mode));
    else
        rp_out_printf(out, "%-8s %s %s", title, rp_fmt_int(total, ms), rp_measures[d->measure].what);
    if (processes > 1)
        rp_out_printf(out, ", %lld processes", (long long)processes);
    rp_out_write(out, "\n", 1);
}

int rp_diff_write_text(rp_out *out, const rp_diff *d, bool normalize, int top)
{
    char delta[RP_NUMFMT_MAX + 1];
    write_side(out, d, "Base:", d->base.total, d->base_mode, d->base_processes);
    write_side(out, d, "Target:", d->target.total, d->target_mode, d->target_processes);
    double change = (double)(d->target.total - d->base.total) / scale_of(d);
    rp_out_printf(out, "%-8s %s %s", "Change:", signed_number(d, change, delta), unit_of(d));
    if (d->base.total > 0)
        rp_out_printf(out, " (%+.1f%%)", change * scale_of(d) * 100.0 / (double)d->base.total);
    rp_out_write(out, "\n", 1);
    if (d->base_mode != d->target_mode && d->measure == RP_MEASURE_TIME)
        rp_out_printf(out, "NOTE: comparing a %s profile with a %s profile\n", rp_mode_name(d->base_mode),
                      rp_mode_name(d->target_mode));
    if (normalize)
        rp_out_puts(out, "Normalized: each method's share of its side's total, in percent\n");
    rp_out_write(out, "\n", 1);
    bool time = d->measure == RP_MEASURE_TIME;
    if (write_table(out, d, time ? "Flat (self time)" : "Flat (self)", d->base.flat, d->target.flat, normalize,
                    top) != 0)
        return -1;
    rp_out_write(out, "\n", 1);
    return write_table(out, d, time ? "Cumulative (total time)" : "Cumulative (total)", d->base.cum, d->target.cum,
                       normalize, top);
}
