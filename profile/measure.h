/*
 * profile/measure.h — what a profile's sample weights measure.
 *
 * Owns: the measures a profile may carry — time (the gem's samples, ns of
 * CPU or wall time), and with allocation sampling (RPERF_ALLOC) the
 * objects allocated, and the objects and bytes still retained when the
 * profile was written — with their names on the command line
 * (--measure), in pprof (Go's heap-profile names) and their units.
 */
#ifndef RPERF_PROFILE_MEASURE_H
#define RPERF_PROFILE_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

typedef enum rp_measure {
    RP_MEASURE_TIME = 0,
    RP_MEASURE_ALLOC_OBJECTS,
    RP_MEASURE_RETAINED_OBJECTS,
    RP_MEASURE_RETAINED_BYTES,
    RP_MEASURES
} rp_measure;

/* Measures other than time: the profile's memory tables. */
#define RP_MEMORY_MEASURES (RP_MEASURES - 1)

typedef struct rp_measure_info {
    const char *name;       /* --measure NAME: time, alloc, retained, retained-bytes */
    const char *pprof_type; /* pprof sample type (time: the mode's "cpu"/"wall") */
    const char *pprof_unit; /* "nanoseconds", "count", "bytes" */
    const char *unit;       /* what a total is printed in: "ms", "objects", "bytes" */
    const char *what;       /* in words, for headings: "allocated objects" */
} rp_measure_info;

extern const rp_measure_info rp_measures[RP_MEASURES];

/* The measure a --measure value names (its name or its pprof type), or
 * -1 when none. */
int rp_measure_parse(const char *name);

/* A weight of measure `m` as text tables show it: milliseconds with one
 * decimal for time, a grouped integer otherwise; and the short unit that
 * follows it ("ms", "B", "" for objects). */
#define RP_MEASURE_TEXT_MAX 40
const char *rp_measure_format(rp_measure m, int64_t weight, char buf[RP_MEASURE_TEXT_MAX]);
const char *rp_measure_short_unit(rp_measure m);

/* The accepted --measure values, for an error message. */
#define RP_MEASURE_CHOICES "time, alloc (alloc_objects), retained (inuse_objects), retained-bytes (inuse_space)"

#endif
