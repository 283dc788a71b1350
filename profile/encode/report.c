/*
 * profile/encode/report.c — the text report. See report.h.
 */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../flatcum.h"
#include "../../common/numfmt.h"
#include "../../common/vec.h"
#include "../timewin.h"

/* One row: "  <ms> ms <pct>%  label (path)", or "(path:line)"; objects
 * and bytes of a memory measure in place of the milliseconds. */
static void write_row(rp_out *out, const rp_profile *p, const rp_frame_weight *fw, int64_t total)
{
    char value[RP_MEASURE_TEXT_MAX], name[RP_FRAME_NAME_MAX];
    double pct = total > 0 ? (double)fw->weight * 100.0 / (double)total : 0.0;
    rp_out_printf(out, "  %14s %-2s %5.1f%%  %s\n", rp_measure_format(p->measure, fw->weight, value),
                  rp_measure_short_unit(p->measure), pct,
                  rp_frame_name(p, &p->frames[fw->frame], name, sizeof(name)));
}

/* "Total: 1234.5ms (cpu)" as the gem prints it, or for a memory measure
 * "Total: 705,024 allocated objects (1 in 128 allocations sampled)". */
static void write_total(rp_out *out, const rp_profile *p, int64_t total)
{
    char value[RP_MEASURE_TEXT_MAX];
    if (p->measure == RP_MEASURE_TIME)
        rp_out_printf(out, "Total: %.1fms (%s)\n", (double)total / 1e6, rp_mode_name(p->meta.mode));
    else if (p->meta.alloc_window_ms > 0)
        rp_out_printf(out, "Total: %s %s (1 in %" PRId64 " allocations sampled in %" PRId64
                           " ms windows every ~%" PRId64 " ms, scaled to the whole run)\n",
                      rp_measure_format(p->measure, total, value), rp_measures[p->measure].what,
                      p->meta.alloc_rate, p->meta.alloc_window_ms, p->meta.alloc_window_every_ms);
    else
        rp_out_printf(out, "Total: %s %s (1 in %" PRId64 " allocations sampled)\n",
                      rp_measure_format(p->measure, total, value), rp_measures[p->measure].what,
                      p->meta.alloc_rate);
}

static void write_table(rp_out *out, const rp_profile *p, const char *title,
                        const rp_frame_weight *rows, size_t count, int top_n, int64_t total)
{
    rp_out_printf(out, " %s:\n", title);
    for (size_t i = 0; i < count && (top_n < 0 || i < (size_t)top_n); i++)
        write_row(out, p, &rows[i], total);
}

int rp_text_write(const rp_profile *p, rp_out *out, const rp_encode_opts *opts)
{
    return rp_report_write(p, out, opts->top, !opts->no_header);
}

int rp_report_write(const rp_profile *p, rp_out *out, int top_n, bool header)
{
    if (p->samples.count == 0) {
        rp_out_puts(out, "No samples recorded.\n");
        return 0;
    }
    rp_flatcum fc;
    if (rp_flatcum_compute(p, &fc) != 0)
        return -1;
    if (header) {
        int64_t samples = p->meta.sampling_count > 0 ? p->meta.sampling_count
                                                     : (int64_t)p->samples.count;
        write_total(out, p, fc.total);
        if (p->measure == RP_MEASURE_TIME)
            rp_out_printf(out, "Samples: %" PRId64 ", Frequency: %" PRId64 "Hz\n", samples,
                          p->meta.frequency);
        if (p->meta.process_count > 1)
            rp_out_printf(out, "Processes: %" PRId64 "\n", p->meta.process_count);
        if (p->load.windowed) {
            char window[RP_WINDOW_TEXT_MAX];
            rp_out_printf(out, "Window: %s\n", rp_time_window_text(&p->load, window, sizeof(window)));
        }
        rp_out_write(out, "\n", 1);
    }
    write_table(out, p, "Flat", fc.flat, fc.flat_count, top_n, fc.total);
    rp_out_write(out, "\n", 1);
    write_table(out, p, "Cumulative", fc.cum, fc.cum_count, top_n, fc.total);
    rp_flatcum_free(&fc);
    return 0;
}

/* --- report --by KEY ---------------------------------------------------------- */

/* One row: a value of the key (a string id, RP_IDX_NONE for "not set"; for
 * thread_seq the number itself) and its weight. Values are ids, not text,
 * so two values are one row only when they are the same string. */
typedef struct by_value {
    uint32_t value;
    int64_t weight;
} by_value;

typedef struct by_key {
    const rp_profile *p;
    rp_label_key key;
} by_key;

static void value_text(const by_key *k, uint32_t value, char *buf, size_t size)
{
    if (k->key.thread_seq)
        snprintf(buf, size, "%" PRIu32, value);
    else
        snprintf(buf, size, "%s", value == RP_IDX_NONE ? "(not set)" : rp_profile_str(k->p, value));
}

static int by_value_id(const void *a, const void *b)
{
    uint32_t x = ((const by_value *)a)->value, y = ((const by_value *)b)->value;
    return x < y ? -1 : x > y;
}

static int heaviest_first(const void *a, const void *b, void *key)
{
    const by_value *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    char tx[RP_FRAME_NAME_MAX], ty[RP_FRAME_NAME_MAX];
    value_text(key, x->value, tx, sizeof(tx));
    value_text(key, y->value, ty, sizeof(ty));
    return strcmp(tx, ty);
}

/* Sorts the rows by value and adds up each value's weights; returns the
 * number of rows left. */
static size_t fold_values(by_value *rows, size_t count)
{
    if (count == 0)
        return 0;
    qsort(rows, count, sizeof(*rows), by_value_id);
    size_t n = 0;
    for (size_t i = 1; i < count; i++) {
        if (rows[i].value == rows[n].value)
            rp_add_saturating(&rows[n].weight, rows[i].weight);
        else
            rows[++n] = rows[i];
    }
    return n + 1;
}

int rp_report_by_write(const rp_profile *p, rp_out *out, const char *key)
{
    by_key k = {p, rp_label_key_of(p, key)};
    by_value *rows = rp_alloc_array(p->samples.count, sizeof(*rows));
    if (!rows)
        return -1;
    int64_t total = 0;
    for (size_t i = 0; i < p->samples.count; i++) {
        const rp_sample *s = &p->samples.samples[i];
        uint32_t value = k.key.thread_seq          ? s->thread_seq
                         : k.key.id == RP_IDX_NONE ? RP_IDX_NONE
                                                   : rp_profile_label_value(p, s->label_set, k.key.id);
        rows[i] = (by_value){value, s->weight};
        rp_add_saturating(&total, s->weight);
    }
    size_t count = fold_values(rows, p->samples.count);
    if (count)
        qsort_r(rows, count, sizeof(*rows), heaviest_first, &k);
    write_total(out, p, total);
    rp_out_printf(out, "\n By %s:\n", key);
    char value[RP_MEASURE_TEXT_MAX], text[RP_FRAME_NAME_MAX];
    for (size_t v = 0; v < count; v++) {
        value_text(&k, rows[v].value, text, sizeof(text));
        rp_out_printf(out, "  %14s %-2s %5.1f%%  %s\n", rp_measure_format(p->measure, rows[v].weight, value),
                      rp_measure_short_unit(p->measure),
                      total > 0 ? (double)rows[v].weight * 100.0 / (double)total : 0.0, text);
    }
    free(rows);
    return 0;
}
