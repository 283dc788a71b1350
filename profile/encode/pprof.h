/*
 * profile/encode/pprof.h — the pprof encoder (profile.proto, as `go tool pprof`
 * reads it).
 *
 * Owns: mapping the merged profile onto profile.proto: one sample per
 * (stack, thread, label set) with its weight in nanoseconds, one location
 * and one function per distinct (path, label) frame, labels `thread_seq`
 * (numeric) and every label-set key (%GVL, %GC, %pid, ...) as strings,
 * comments with version, mode, frequency and Ruby version, the start time,
 * duration and sampling period.
 */
#ifndef RPERF_PROFILE_PPROF_H
#define RPERF_PROFILE_PPROF_H

#include "../../common/out.h"
#include "../profile.h"
#include "encoder.h"

/* Streams the (uncompressed) protobuf bytes to `out`; pprof files are
 * gzip-compressed, so `out` normally compresses. Returns 0, or -1 when out
 * of memory. */
int rp_pprof_write(const rp_profile *p, rp_out *out, const rp_encode_opts *opts);

#endif
