/*
 * analyzer/report.c — the text report. See report.h.
 */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../common/flatcum.h"
#include "../common/numfmt.h"

/* One row: "  <ms> ms <pct>%  label (path)", or "(path:line)". */
static void write_row(rp_out *out, const rp_profile *p, const rp_frame_weight *fw, int64_t total)
{
    char ms[RP_NUMFMT_MAX], name[RP_FRAME_NAME_MAX];
    double pct = total > 0 ? (double)fw->weight * 100.0 / (double)total : 0.0;
    rp_out_printf(out, "  %14s ms %5.1f%%  %s\n", rp_fmt_ms(fw->weight, ms), pct,
                  rp_frame_name(p, &p->frames[fw->frame], name, sizeof(name)));
}

static void write_table(rp_out *out, const rp_profile *p, const char *title,
                        const rp_frame_weight *rows, size_t count, int top_n, int64_t total)
{
    rp_out_printf(out, " %s:\n", title);
    for (size_t i = 0; i < count && (top_n < 0 || i < (size_t)top_n); i++)
        write_row(out, p, &rows[i], total);
}

int rp_text_write(const rp_profile *p, rp_out *out, const rp_options *o)
{
    return rp_report_write(p, out, o->top, true);
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
        rp_out_printf(out, "Total: %.1fms (%s)\n", (double)fc.total / 1e6, rp_mode_name(p->meta.mode));
        rp_out_printf(out, "Samples: %" PRId64 ", Frequency: %" PRId64 "Hz\n", samples,
                      p->meta.frequency);
        if (p->meta.process_count > 1)
            rp_out_printf(out, "Processes: %" PRId64 "\n", p->meta.process_count);
        rp_out_write(out, "\n", 1);
    }
    write_table(out, p, "Flat", fc.flat, fc.flat_count, top_n, fc.total);
    rp_out_write(out, "\n", 1);
    write_table(out, p, "Cumulative", fc.cum, fc.cum_count, top_n, fc.total);
    rp_flatcum_free(&fc);
    return 0;
}

/* --- report --by KEY ---------------------------------------------------------- */

typedef struct by_value {
    char text[64];
    int64_t weight;
} by_value;

static int heaviest_first(const void *a, const void *b)
{
    const by_value *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    return strcmp(x->text, y->text);
}

/* The value of `key` for a sample, into `text` ("" when not set). */
static void value_for(const rp_profile *p, const rp_sample *s, const char *key, char text[64])
{
    text[0] = '\0';
    if (strcmp(key, "thread_seq") == 0) {
        snprintf(text, 64, "%" PRIu32, s->thread_seq);
        return;
    }
    const rp_label_set *ls = &p->label_sets[s->label_set];
    for (uint32_t i = 0; i < ls->count; i++)
        if (strcmp(rp_profile_str(p, p->labels[ls->first + i].key), key) == 0)
            snprintf(text, 64, "%s", rp_profile_str(p, p->labels[ls->first + i].value));
}

int rp_report_by_write(const rp_profile *p, rp_out *out, const char *key)
{
    by_value *values = NULL;
    size_t count = 0;
    int64_t total = 0;
    for (size_t i = 0; i < p->samples.count; i++) {
        const rp_sample *s = &p->samples.samples[i];
        char text[64];
        value_for(p, s, key, text);
        size_t v = 0;
        while (v < count && strcmp(values[v].text, text) != 0)
            v++;
        if (v == count) {
            by_value *grown = realloc(values, (count + 1) * sizeof(*values));
            if (!grown) {
                free(values);
                return -1;
            }
            values = grown;
            values[count] = (by_value){.weight = 0};
            memcpy(values[count++].text, text, sizeof(text));
        }
        rp_add_saturating(&values[v].weight, s->weight);
        rp_add_saturating(&total, s->weight);
    }
    if (count)
        qsort(values, count, sizeof(*values), heaviest_first);
    rp_out_printf(out, "Total: %.1fms (%s)\n\n By %s:\n", (double)total / 1e6, rp_mode_name(p->meta.mode), key);
    char ms[RP_NUMFMT_MAX];
    for (size_t v = 0; v < count; v++)
        rp_out_printf(out, "  %14s ms %5.1f%%  %s\n", rp_fmt_ms(values[v].weight, ms),
                      total > 0 ? (double)values[v].weight * 100.0 / (double)total : 0.0,
                      values[v].text[0] ? values[v].text : "(not set)");
    free(values);
    return 0;
}
