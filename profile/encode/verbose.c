/*
 * profile/encode/verbose.c — the verbose summary. See verbose.h.
 */
#include "verbose.h"

#include <inttypes.h>

#include "../flatcum.h"
#include "../schema.h"

#define VERBOSE_TOP 10

static void write_top(rp_out *out, const rp_profile *p, const char *kind,
                      const rp_frame_weight *rows, size_t count, int64_t total)
{
    size_t n = count < VERBOSE_TOP ? count : VERBOSE_TOP;
    rp_out_printf(out, "[Rperf] top %zu by %s:\n", n, kind);
    for (size_t i = 0; i < n; i++) {
        char name[RP_FRAME_NAME_MAX];
        double pct = total > 0 ? (double)rows[i].weight * 100.0 / (double)total : 0.0;
        rp_out_printf(out, "[Rperf]   %8.1fms %5.1f%%  %s\n", (double)rows[i].weight / 1e6, pct,
                      rp_frame_name(p, &p->frames[rows[i].frame], name, sizeof(name)));
    }
}

int rp_verbose_write(const rp_profile *p, rp_out *out, size_t thread_records)
{
    const rp_meta *m = &p->meta;
    double avg_us = m->sampling_count > 0
                        ? (double)m->sampling_time_ns / (double)m->sampling_count / 1000.0
                        : 0.0;
    rp_out_printf(out, "[Rperf] mode=%s frequency=%" PRId64 "Hz\n", rp_mode_name(m->mode),
                  m->frequency);
    rp_out_printf(out, "[Rperf] sampling: %" PRId64 " calls, %.2fms total, %.1fus/call avg\n",
                  m->sampling_count, (double)m->sampling_time_ns / 1e6, avg_us);
    rp_out_printf(out, "[Rperf] samples recorded: %" PRId64 " (%" PRId64 " triggers, %" PRId64
                       " dropped, %" PRId64 " truncated at %d frames)\n",
                  m->sampling_count, m->trigger_count, m->dropped_samples, m->truncated_samples,
                  RP_STACK_MAX);
    if (m->worker_cpu_ns > 0)
        rp_out_printf(out, "[Rperf] agent threads: %.2fms CPU, %.1fus/trigger\n",
                      (double)m->worker_cpu_ns / 1e6,
                      m->trigger_count > 0 ? (double)m->worker_cpu_ns / (double)m->trigger_count / 1000.0 : 0.0);
    if (thread_records)
        rp_out_printf(out, "[Rperf] thread records: %zu allocated for %" PRId64 " threads\n",
                      thread_records, m->detected_thread_count);
    rp_flatcum fc;
    if (p->samples.count == 0)
        return 0;
    if (rp_flatcum_compute(p, &fc) != 0)
        return -1;
    write_top(out, p, "flat", fc.flat, fc.flat_count, fc.total);
    write_top(out, p, "cum", fc.cum, fc.cum_count, fc.total);
    rp_flatcum_free(&fc);
    return 0;
}
