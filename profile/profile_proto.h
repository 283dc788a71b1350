/*
 * profile/profile_proto.h — pprof's profile.proto, as numbers and words.
 *
 * Owns: the field numbers of the profile.proto messages rperf writes
 * (profile/encode/pprof.c) and reads (profile/profile_read_pprof.c), and the
 * comment lines both use to carry what profile.proto has no field for.
 */
#ifndef RPERF_PROFILE_PROFILE_PROTO_H
#define RPERF_PROFILE_PROFILE_PROTO_H

#include "schema.h"

enum {
    PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
    PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
    PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
    PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
    VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
    SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
    LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3,
    LOCATION_ID = 1, LOCATION_LINE = 4,
    LINE_FUNCTION_ID = 1, LINE_LINE = 2,
    FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
    FUNCTION_START_LINE = 5,
};

/* Comments ("rperf 0.9.0", "mode: wall", "frequency: 1000Hz", "ruby: 3.4.5",
 * "samples: 1234, triggers: 1240, processes: 2"), as the gem writes the
 * first four. */
#define RP_PPROF_COMMENT_VERSION "rperf "
#define RP_PPROF_COMMENT_MODE "mode: "
#define RP_PPROF_COMMENT_FREQUENCY "frequency: "
#define RP_PPROF_COMMENT_RUBY "ruby: "
#define RP_PPROF_COMMENT_COUNTS "samples: "
#define RP_PPROF_COUNTS_FORMAT "%lld, triggers: %lld, processes: %lld"

/* What profiling cost: "profiler: sampling 10700000 ns, worker 85300000 ns"
 * (the time inside the sampling job, the worker thread's CPU time). */
#define RP_PPROF_COMMENT_PROFILER "profiler: "
#define RP_PPROF_PROFILER_FORMAT "sampling %lld ns, worker %lld ns"

/* Allocation sampling: "alloc_rate: 128" (one allocation in N sampled). */
#define RP_PPROF_COMMENT_ALLOC_RATE "alloc_rate: "

/* The numeric label that carries a sample's thread. */
#define RP_PPROF_THREAD_SEQ RP_LABEL_THREAD_SEQ

#endif
