/*
 * profile/measure.c — the measures' names. See measure.h.
 */
#include "measure.h"

#include <string.h>

#include "../common/numfmt.h"

const rp_measure_info rp_measures[RP_MEASURES] = {
    [RP_MEASURE_TIME] = {"time", NULL, "nanoseconds", "ms", "time"},
    [RP_MEASURE_ALLOC_OBJECTS] = {"alloc", "alloc_objects", "count", "objects", "allocated objects"},
    [RP_MEASURE_RETAINED_OBJECTS] = {"retained", "inuse_objects", "count", "objects", "retained objects"},
    [RP_MEASURE_RETAINED_BYTES] = {"retained-bytes", "inuse_space", "bytes", "bytes", "retained bytes"},
};

int rp_measure_parse(const char *name)
{
    for (int m = 0; m < RP_MEASURES; m++)
        if (strcmp(name, rp_measures[m].name) == 0 ||
            (rp_measures[m].pprof_type && strcmp(name, rp_measures[m].pprof_type) == 0))
            return m;
    return -1;
}

const char *rp_measure_format(rp_measure m, int64_t weight, char buf[RP_MEASURE_TEXT_MAX])
{
    _Static_assert(RP_MEASURE_TEXT_MAX >= RP_NUMFMT_MAX, "room for numfmt's text");
    return m == RP_MEASURE_TIME ? rp_fmt_ms(weight, buf) : rp_fmt_int(weight, buf);
}

const char *rp_measure_short_unit(rp_measure m)
{
    return m == RP_MEASURE_TIME ? "ms" : m == RP_MEASURE_RETAINED_BYTES ? "B" : "";
}
