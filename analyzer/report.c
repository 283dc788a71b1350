/*
 * analyzer/report.c — the text report. See report.h.
 */
#include "report.h"

#include <inttypes.h>

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
