/*
 * profile/regress.h — did the target get slower than the base, run for
 * run? (rperf-analyze diff --check)
 *
 * Owns: each side's runs (one profile each) reduced to self time per
 * method name ("label (path)", as diff.c matches them), and for every
 * method heavy enough — at the median on either side, at least
 * RP_REGRESS_MIN_SHARE of a run's time and RP_REGRESS_MIN_SAMPLES samples'
 * worth (fewer are below what a few runs can tell: a one-off stretch of
 * GC or loading lands on a method in one run and not the next) — the
 * test of whether its self time per run
 * grew by more than PCT percent: the one-sided Mann–Whitney rank test of
 * target > base × (1 + PCT/100), exact (normal beyond 2,500 pairs), at
 * p < RP_REGRESS_ALPHA; and, since a run's time of a method is counted in
 * samples, the same growth against the sampling noise of the medians
 * (Poisson: a method of k samples a run wobbles by about √k), one-sided
 * at the same p — so that a method of a few samples, whose runs can rank
 * apart by chance, is not named for it. Testing the growth itself, not
 * only a difference, keeps a method that merely wobbles from being named.
 * Self time names the method whose own code got slower, not its callers.
 */
#ifndef RPERF_PROFILE_REGRESS_H
#define RPERF_PROFILE_REGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/out.h"
#include "../common/strtab.h"
#include "profile.h"

#define RP_REGRESS_MIN_SHARE 0.01
#define RP_REGRESS_MIN_SAMPLES 50
#define RP_REGRESS_ALPHA 0.05

typedef struct rp_regress_side {
    int64_t **self; /* per run: ns per method name id (up to lens[run]) */
    size_t *lens;
    int64_t *totals; /* per run: all its time */
    int64_t *ticks;  /* per run: the time one sample stands for (ns) */
    size_t runs, cap;
} rp_regress_side;

typedef struct rp_regression {
    uint32_t name;
    double base_ms, target_ms; /* medians per run */
    double growth_pct;         /* of the medians */
    double p; /* the larger of the rank test's and the sampling noise's */
} rp_regression;

typedef struct rp_regress {
    double pct;
    rp_strtab names;
    rp_regress_side base, target;
    rp_regression *found; /* most regressed first */
    size_t found_count, compared;
} rp_regress;

void rp_regress_init(rp_regress *r, double pct);
void rp_regress_free(rp_regress *r);

/* One run of a side (its profile). Returns 0, or -1 when out of memory. */
int rp_regress_add_run(rp_regress *r, bool target, const rp_profile *p);

/* Tests every method. Returns 0, or -1 when out of memory. */
int rp_regress_compute(rp_regress *r);

/* The exact (or, past 2,500 pairs, normal) one-sided p of a Mann–Whitney
 * U at least `u` with samples of n and m (ties as halves). */
double rp_mann_whitney_p(double u, size_t n, size_t m);

/* The verdict as text (or JSON). Returns 0, or -1 when out of memory. */
int rp_regress_write(rp_out *out, const rp_regress *r, bool json);

#endif
