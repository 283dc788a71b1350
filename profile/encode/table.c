/*
 * profile/encode/table.c — flat tables for tools and language models. See
 * table.h.
 */
#include "table.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/json_reader.h"
#include "../../common/json_writer.h"
#include "../../common/numfmt.h"
#include "../../common/vec.h"
#include "../flatcum.h"

#define NUMBER_MAX RP_NUMFMT_MAX

static const char *float_text(char buf[NUMBER_MAX], double v, int digits)
{
    return rp_fmt_ruby_float(v, digits, buf);
}

static const char *int_text(char buf[NUMBER_MAX], int64_t v)
{
    snprintf(buf, NUMBER_MAX, "%" PRId64, v);
    return buf;
}

static double pct(int64_t weight, int64_t total)
{
    return total > 0 ? rp_ruby_round((double)weight * 100.0 / (double)total, 2) : 0.0;
}

/* --- writing rows ---------------------------------------------------------------------------------- */

/* A cell of a row: text, a number's text, or none (empty in TSV, null
 * in JSON). */
typedef struct cell {
    const char *key;
    const char *text; /* NULL: none */
    bool is_string;
} cell;

typedef struct table_out {
    rp_out *out;
    rp_json *json; /* NULL: TSV */
} table_out;

/* A table's output: TSV, or (json) a JSON array opened on `j`. */
static table_out table_begin(rp_out *out, bool json, rp_json *j)
{
    if (json) {
        rp_json_init(j, out);
        rp_json_begin_array(j);
    }
    return (table_out){out, json ? j : NULL};
}

static void table_end(table_out *t)
{
    if (!t->json)
        return;
    rp_json_end_array(t->json);
    rp_out_puts(t->out, "\n");
}

/* TSV has no escaping: a tab or line break in a method name (define_method
 * takes any string) becomes a space rather than shift the columns. */
static void tsv_text(rp_out *out, const char *s)
{
    for (; *s; s++) {
        char c = *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s;
        rp_out_write(out, &c, 1);
    }
}

static void write_header(table_out *t, const cell *cells, int n)
{
    if (t->json)
        return;
    for (int i = 0; i < n; i++)
        rp_out_printf(t->out, "%s%s", i ? "\t" : "", cells[i].key);
    rp_out_puts(t->out, "\n");
}

static void write_row(table_out *t, const cell *cells, int n)
{
    if (t->json)
        rp_json_begin_object(t->json);
    for (int i = 0; i < n; i++) {
        if (t->json) {
            rp_json_key(t->json, cells[i].key);
            if (!cells[i].text)
                rp_json_null(t->json);
            else if (cells[i].is_string)
                rp_json_cstring(t->json, cells[i].text);
            else
                rp_json_raw(t->json, cells[i].text);
            continue;
        }
        if (i)
            rp_out_puts(t->out, "\t");
        if (cells[i].text)
            tsv_text(t->out, cells[i].text);
    }
    if (t->json)
        rp_json_end_object(t->json);
    else
        rp_out_puts(t->out, "\n");
}

/* The summary: "# summary\tkey=value..." in TSV, {"summary": {...}} as
 * the array's last element in JSON. */
static void write_summary(table_out *t, const cell *cells, int n)
{
    if (t->json) {
        rp_json_begin_object(t->json);
        rp_json_key(t->json, "summary");
        rp_json_begin_object(t->json);
        for (int i = 0; i < n; i++) {
            rp_json_key(t->json, cells[i].key);
            rp_json_raw(t->json, cells[i].text);
        }
        rp_json_end_object(t->json);
        rp_json_end_object(t->json);
        return;
    }
    rp_out_puts(t->out, "# summary");
    for (int i = 0; i < n; i++)
        rp_out_printf(t->out, "\t%s=%s", cells[i].key, cells[i].text);
    rp_out_puts(t->out, "\n");
}

/* --- the summary's figures -------------------------------------------------------------------- */

enum { FIG_TOTAL_MS, FIG_CPU_MS, FIG_ALLOCATED, FIG_GC_MINOR, FIG_GC_MAJOR, FIGURES };
static const char *const figure_keys[FIGURES] = {"total_ms", "cpu_ms", "allocated_objects", "gc_count_minor",
                                                 "gc_count_major"};

typedef struct figures {
    bool has[FIGURES];
    double value[FIGURES]; /* ms rounded to 0.1, or counts */
} figures;

/* The figures of a summary a program handed with its data (the gem's
 * tables use it as given): its top-level numbers of figure_keys. */
static figures given_figures(const char *json)
{
    figures f = {0};
    rp_json_reader r = {0}; /* rp_jr_init keeps the buffers it finds */
    rp_jr_init(&r, json, strlen(json));
    if (rp_jr_next(&r) != RP_JT_BEGIN_OBJECT) {
        rp_jr_free(&r);
        return f;
    }
    for (rp_jtok t = rp_jr_next(&r); t == RP_JT_KEY; t = rp_jr_next(&r)) {
        int key = -1;
        for (int k = 0; k < FIGURES; k++)
            if (strlen(figure_keys[k]) == r.str_len && memcmp(figure_keys[k], r.str, r.str_len) == 0)
                key = k;
        rp_jtok value = rp_jr_next(&r);
        if (key >= 0 && value == RP_JT_NUMBER) {
            f.has[key] = true;
            f.value[key] = key <= FIG_CPU_MS ? rp_ruby_round(rp_jr_double(&r), 1) : rp_jr_double(&r);
        } else if (!rp_jr_skip(&r, value)) {
            break;
        }
    }
    rp_jr_free(&r);
    return f;
}

static figures figures_of(const rp_profile *p)
{
    const rp_meta *m = &p->meta;
    if (m->given_summary != RP_IDX_NONE)
        return given_figures(rp_profile_str(p, m->given_summary));
    figures f = {0};
    f.has[FIG_TOTAL_MS] = true;
    f.value[FIG_TOTAL_MS] = rp_ruby_round((double)m->duration_ns / 1e6, 1);
    f.has[FIG_CPU_MS] = m->user_ns != 0 || m->sys_ns != 0;
    f.value[FIG_CPU_MS] = rp_ruby_round((double)(m->user_ns + m->sys_ns) / 1e6, 1);
    for (int k = FIG_ALLOCATED; k <= FIG_GC_MAJOR; k++)
        f.has[k] = m->has_gc;
    f.value[FIG_ALLOCATED] = (double)m->gc.allocated_objects;
    f.value[FIG_GC_MINOR] = (double)m->gc.minor_count;
    f.value[FIG_GC_MAJOR] = (double)m->gc.major_count;
    return f;
}

static const char *figure_text(char buf[NUMBER_MAX], int k, double v)
{
    return k <= FIG_CPU_MS ? float_text(buf, v, 1) : int_text(buf, (int64_t)v);
}

/* --- report ----------------------------------------------------------------------------------------- */

static void write_report_rows(table_out *t, const rp_by_name *m, const rp_name_weight *sorted, size_t count,
                              int rows)
{
    size_t shown = rows >= 0 && (size_t)rows < count ? (size_t)rows : count;
    char a[NUMBER_MAX], b[NUMBER_MAX], c[NUMBER_MAX];
    cell header[] = {{"method", NULL, true}, {"self_pct", NULL, false}, {"total_pct", NULL, false},
                     {"self_ms", NULL, false}};
    write_header(t, header, 4);
    for (size_t i = 0; i < shown; i++) {
        cell row[] = {{"method", sorted[i].name, true},
                      {"self_pct", float_text(a, pct(sorted[i].self, m->total), 2), false},
                      {"total_pct", float_text(b, pct(sorted[i].total, m->total), 2), false},
                      {"self_ms", float_text(c, (double)sorted[i].self / 1e6, 1), false}};
        write_row(t, row, 4);
    }
    if (shown == count)
        return;
    /* the rest from their weights, not from rounded rows */
    int64_t rest = 0;
    for (size_t i = shown; i < count; i++)
        rest += sorted[i].self;
    cell other[] = {{"method", "(other)", true}, {"self_pct", float_text(a, pct(rest, m->total), 2), false},
                    {"total_pct", NULL, false}, /* cumulative shares overlap: no sum */
                    {"self_ms", float_text(c, (double)rest / 1e6, 1), false}};
    write_row(t, other, 4);
}

static void write_report_summary(table_out *t, const rp_profile *p)
{
    figures f = figures_of(p);
    char text[FIGURES][NUMBER_MAX];
    cell cells[FIGURES];
    int n = 0;
    for (int k = 0; k < FIGURES; k++)
        if (f.has[k])
            cells[n++] = (cell){figure_keys[k], figure_text(text[k], k, f.value[k]), false};
    write_summary(t, cells, n);
}

static int rows_wanted(const rp_encode_opts *opts)
{
    return opts && opts->top != RP_REPORT_TOP_DEFAULT ? opts->top : RP_TABLE_ROWS_DEFAULT;
}

static int write_report(const rp_profile *p, rp_out *out, int rows, bool json)
{
    rp_by_name m;
    size_t count = 0;
    rp_name_weight *sorted = rp_by_name_compute(p, &m) == 0 ? rp_by_name_by_self(&m, &count) : NULL;
    if (sorted) {
        rp_json j;
        table_out t = table_begin(out, json, &j);
        write_report_rows(&t, &m, sorted, count, rows);
        write_report_summary(&t, p);
        table_end(&t);
    }
    free(sorted);
    rp_by_name_free(&m);
    return sorted ? 0 : -1;
}

int rp_table_write(const rp_profile *p, rp_out *out, const rp_encode_opts *opts)
{
    return write_report(p, out, rows_wanted(opts), false);
}

int rp_table_json_write(const rp_profile *p, rp_out *out, const rp_encode_opts *opts)
{
    return write_report(p, out, rows_wanted(opts), true);
}

/* --- diff ---------------------------------------------------------------------------------------------- */

typedef struct change {
    const char *name;
    double base, head, delta; /* self shares (rounded), head - base */
} change;

static int delta_descending(const void *a, const void *b)
{
    const change *x = a, *y = b;
    double dx = fabs(x->delta), dy = fabs(y->delta);
    if (dx != dy)
        return dx > dy ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Every method either side has time in, by name. */
static change *changes_of(const rp_by_name *base, const rp_by_name *head, size_t *count)
{
    change *list = rp_alloc_array(base->count + head->count + 1, sizeof(*list));
    if (!list)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < head->count; i++) {
        const rp_name_weight *h = &head->list[i], *b = rp_by_name_find(base, h->name);
        int64_t bself = b ? b->self : 0;
        if (h->self > 0 || bself > 0)
            list[n++] = (change){h->name, pct(bself, base->total), pct(h->self, head->total), 0};
    }
    for (size_t i = 0; i < base->count; i++) {
        const rp_name_weight *b = &base->list[i];
        if (b->self > 0 && !rp_by_name_find(head, b->name))
            list[n++] = (change){b->name, pct(b->self, base->total), 0.0, 0};
    }
    for (size_t i = 0; i < n; i++)
        list[i].delta = rp_ruby_round(list[i].head - list[i].base, 2);
    qsort(list, n, sizeof(*list), delta_descending);
    *count = n;
    return list;
}

static void write_diff_rows(table_out *t, const change *list, size_t count, int rows)
{
    char a[NUMBER_MAX], b[NUMBER_MAX], c[NUMBER_MAX];
    cell header[] = {{"method", NULL, true}, {"self_pct_base", NULL, false}, {"self_pct_head", NULL, false},
                     {"delta_pt", NULL, false}};
    write_header(t, header, 4);
    for (size_t i = 0; i < count && (rows < 0 || i < (size_t)rows); i++) {
        cell row[] = {{"method", list[i].name, true}, {"self_pct_base", float_text(a, list[i].base, 2), false},
                      {"self_pct_head", float_text(b, list[i].head, 2), false},
                      {"delta_pt", float_text(c, list[i].delta, 2), false}};
        write_row(t, row, 4);
    }
}

/* total_ms, allocated_objects and the GC counts: base, head and delta. */
static void write_diff_summary(table_out *t, const rp_profile *base, const rp_profile *head)
{
    static const int keys[] = {FIG_TOTAL_MS, FIG_ALLOCATED, FIG_GC_MINOR, FIG_GC_MAJOR};
    figures fb = figures_of(base), fh = figures_of(head);
    char names[12][48], text[12][NUMBER_MAX];
    cell cells[12];
    int n = 0;
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        int k = keys[i];
        const char *key = figure_keys[k];
        if (fb.has[k]) {
            snprintf(names[n], sizeof(names[n]), "%s_base", key);
            cells[n] = (cell){names[n], figure_text(text[n], k, fb.value[k]), false};
            n++;
        }
        if (fh.has[k]) {
            snprintf(names[n], sizeof(names[n]), "%s_head", key);
            cells[n] = (cell){names[n], figure_text(text[n], k, fh.value[k]), false};
            n++;
        }
        if (fb.has[k] && fh.has[k]) {
            double d = k == FIG_TOTAL_MS ? rp_ruby_round(fh.value[k] - fb.value[k], 1) : fh.value[k] - fb.value[k];
            snprintf(names[n], sizeof(names[n]), "%s_delta", key);
            cells[n] = (cell){names[n], figure_text(text[n], k, d), false};
            n++;
        }
    }
    write_summary(t, cells, n);
}

int rp_table_diff_write(const rp_profile *base, const rp_profile *head, rp_out *out, bool json, int rows)
{
    rp_by_name mb, mh;
    int rc = rp_by_name_compute(base, &mb);
    rc = rp_by_name_compute(head, &mh) == 0 ? rc : -1;
    size_t count = 0;
    change *list = rc == 0 ? changes_of(&mb, &mh, &count) : NULL;
    if (list) {
        rp_json j;
        table_out t = table_begin(out, json, &j);
        write_diff_rows(&t, list, count, rows);
        write_diff_summary(&t, base, head);
        table_end(&t);
    }
    free(list);
    rp_by_name_free(&mb);
    rp_by_name_free(&mh);
    return list ? 0 : -1;
}
