/*
 * profile/encode/collapsed.h — the collapsed-stacks encoder (FlameGraph,
 * speedscope): one line "bottom;...;leaf weight_ns" per distinct stack of
 * labels.
 */
#ifndef RPERF_PROFILE_COLLAPSED_H
#define RPERF_PROFILE_COLLAPSED_H

#include "../../common/out.h"
#include "../profile.h"
#include "encoder.h"

/* Returns 0, or -1 when out of memory. */
int rp_collapsed_write(const rp_profile *p, rp_out *out, const rp_encode_opts *opts);

#endif
