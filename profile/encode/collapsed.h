/*
 * profile/encode/collapsed.h — the collapsed-stacks encoder (FlameGraph,
 * speedscope): one line "bottom;...;leaf weight_ns" per distinct stack of
 * labels.
 */
#ifndef RPERF_ANALYZER_COLLAPSED_H
#define RPERF_ANALYZER_COLLAPSED_H

#include "../../common/out.h"
#include "../profile.h"
#include "../../analyzer/options.h"

/* Returns 0, or -1 when out of memory. */
int rp_collapsed_write(const rp_profile *p, rp_out *out, const rp_options *o);

#endif
