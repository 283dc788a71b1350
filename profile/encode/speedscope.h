/*
 * profile/encode/speedscope.h — speedscope's file format (convert --speedscope).
 *
 * Owns: the "speedscope" format: one JSON document in the schema of
 * https://www.speedscope.app/file-format-schema.json with the profile's
 * frames shared and one sampled profile per thread — per process and
 * thread when several processes are merged — weights in nanoseconds.
 * speedscope, and rack-mini-profiler's flame graphs built on it, open it.
 */
#ifndef RPERF_PROFILE_SPEEDSCOPE_H
#define RPERF_PROFILE_SPEEDSCOPE_H

#include "../../common/out.h"
#include "../profile.h"
#include "encoder.h"

int rp_speedscope_write(const rp_profile *p, rp_out *out, const rp_encode_opts *opts);

#endif
