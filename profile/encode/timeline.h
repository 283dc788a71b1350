/*
 * profile/encode/timeline.h — report --timeline: how the profile changes over time.
 *
 * Owns: one row per profile file read (with RPERF_INTERVAL, one per part
 * of each process) — its start, duration, process, part number, sampled
 * time and heaviest method by self time — and the text table of the rows
 * in time order.
 */
#ifndef RPERF_PROFILE_TIMELINE_H
#define RPERF_PROFILE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/out.h"
#include "../merge.h"
#include "../profile.h"

typedef struct rp_timeline_row {
    int64_t start_ns, duration_ns, pid, part;
    int64_t sampled_ns, top_ns;
    char top[160]; /* the heaviest method by self time, or "" */
} rp_timeline_row;

typedef struct rp_timeline {
    rp_timeline_row *rows;
    size_t count, cap;
} rp_timeline;

/* Adds the row of one file being merged into `merged` (load.h's
 * visitor). Returns 0 or -1 (out of memory). */
int rp_timeline_add(rp_timeline *t, const rp_profile *merged, const rp_merge_pending *file);

/* The rows in time order as a text table. Returns 0 or -1. */
int rp_timeline_write(rp_timeline *t, rp_out *out);

void rp_timeline_free(rp_timeline *t);

#endif
