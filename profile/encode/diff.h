/*
 * profile/encode/diff.h — comparing two profiles (rperf-analyze diff).
 *
 * Owns: the method-by-method comparison of a base and a target profile:
 * flat (self) and cumulative (total) time per method name ("label (path)"),
 * on each side, absolute or as shares of each side's total (--normalize),
 * and its text table sorted by the size of the change, with methods only
 * one side has marked new or gone.
 */
#ifndef RPERF_PROFILE_DIFF_H
#define RPERF_PROFILE_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "../../common/out.h"
#include "../profile.h"
#include "../../common/strtab.h"

typedef struct rp_diff_side {
    int64_t *flat, *cum; /* per method name id, ns */
    int64_t total;
} rp_diff_side;

typedef struct rp_diff {
    rp_strtab names;     /* method names of both sides */
    rp_diff_side base, target;
    size_t names_cap;    /* of the per-name arrays */
    rp_mode base_mode, target_mode;
    rp_measure measure;  /* what the weights are (both sides: --measure) */
    int64_t base_processes, target_processes;
} rp_diff;

/* Compares `base` and `target`. Returns 0, or -1 when out of memory. */
int rp_diff_compute(const rp_profile *base, const rp_profile *target, rp_diff *d);
void rp_diff_free(rp_diff *d);

/* The text tables, `top` rows each (negative: all); `normalize` compares
 * shares of each side's total instead of times. Returns 0, or -1 when
 * out of memory. */
int rp_diff_write_text(rp_out *out, const rp_diff *d, bool normalize, int top);

#endif
