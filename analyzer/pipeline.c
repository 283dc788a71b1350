/*
 * analyzer/pipeline.c — load, filter, encode, write. See pipeline.h.
 */
#include "pipeline.h"

#include "../profile/diag.h"
#include "../profile/filter.h"
#include "../profile/load.h"
#include "../profile/output.h"
#include "commands.h"

int rp_pipeline_load(char *const *paths, int count, const rp_options *o, bool keep_lines,
                     bool time_slots, rp_profile *p)
{
    rp_load_spec spec = {
        .window = &o->window,
        .keep_lines = keep_lines || o->lines,
        .time_slots = time_slots,
    };
    if (rp_load_paths(paths, count, &spec, p) != 0 || rp_filter_apply(p, &o->tags) != 0)
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
