/*
 * analyzer/pipeline.c — load, filter, encode, write. See pipeline.h.
 */
#include "pipeline.h"

#include "../common/numfmt.h"
#include "../profile/diag.h"
#include "../profile/filter.h"
#include "../profile/load.h"
#include "../profile/my_code.h"
#include "../profile/output.h"
#include "commands.h"

/* --hide-idle, said on stderr. */
static int hide_idle_threads(rp_profile *p)
{
    rp_idle_threads idle;
    if (rp_filter_idle_threads(p, &idle) != 0)
        return -1;
    char ms[RP_NUMFMT_MAX], waiting_ms[RP_NUMFMT_MAX];
    int64_t total = idle.weight + idle.waiting_weight + rp_sample_table_total(rp_profile_table(p, RP_MEASURE_TIME));
    rp_note("--hide-idle: %zu of %zu threads left out, idle (99%% or more of their time off the GVL): "
            "%s ms, %.1f%% of the time",
            idle.threads, idle.of_threads, rp_fmt_ms(idle.weight, ms),
            total > 0 ? 100.0 * (double)idle.weight / (double)total : 0.0);
    if (idle.waiting_weight > 0)
        rp_note("--hide-idle: and %s ms (%.1f%%) of the other threads waiting for work outside requests "
                "(Mutex#sleep, ConditionVariable#wait, Queue#pop, select, sleep)",
                rp_fmt_ms(idle.waiting_weight, waiting_ms), 100.0 * (double)idle.waiting_weight / (double)total);
    return 0;
}

int rp_pipeline_load(char *const *paths, int count, const rp_options *o, bool keep_lines,
                     bool time_slots, rp_profile *p)
{
    rp_load_spec spec = {
        .window = &o->window,
        .keep_lines = keep_lines || o->lines,
        .time_slots = time_slots,
    };
    if (rp_load_paths(paths, count, &spec, p) != 0 || rp_filter_apply(p, &o->tags) != 0 ||
        (o->hide_idle && hide_idle_threads(p) != 0) || (o->my_code && rp_my_code_apply(p) != 0))
        return -1;
    if (o->measure != RP_MEASURE_TIME && !rp_profile_has_memory(p)) {
        rp_error("--measure %s: %s%s has no allocation samples (record with RPERF_ALLOC=N, or "
                 "rperf record --alloc)", rp_measures[o->measure].name, paths[0], count > 1 ? " and the rest" : "");
        return -1;
    }
    rp_profile_select(p, o->measure);
    return 0;
}

int rp_pipeline_convert(char *const *paths, int count, const rp_options *o,
                        const rp_format *format, const char *path)
{
    rp_profile profile;
    int rc = rp_pipeline_load(paths, count, o, format->keeps_lines, format->time_slots, &profile);
    if (rc == 0)
        rc = rp_output_write(&profile, format, &o->encode, path);
    rp_profile_free(&profile);
    return rc == 0 ? RP_EXIT_OK : RP_EXIT_FAILURE;
}
