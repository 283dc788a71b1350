/*
 * profile/regress.h — did the target get slower than the base, run for
 * run, and where? (rperf-analyze diff --check)
 *
 * Owns: each side's runs (one profile each) reduced to the time of every
 * call chain: a Ruby method's self time (with the C methods it called:
 * theirs is their caller's) as called through a given chain of callers —
 * [Object#burn], [Object#burn ← Object#m], [Object#burn ← Object#m ←
 * <main>], ... — methods named "label (path)", as diff.c matches them. Each chain heavy enough (at the
 * median on either side at least RP_REGRESS_MIN_SHARE of a run's time and
 * RP_REGRESS_MIN_SAMPLES samples' worth: fewer are below what a few runs
 * can tell) is tested for whether its time per run grew by more than PCT
 * percent: the one-sided Mann–Whitney rank test of target > base × (1 +
 * PCT/100), exact (normal beyond 2,500 pairs), at p < RP_REGRESS_ALPHA
 * (RP_REGRESS_ALPHA_WHOLE for a method's own time as a whole),
 * and the same growth against the sampling noise of the medians (a chain
 * of k samples a run wobbles by about √k), so that a chain of a few
 * samples is not named for runs that rank apart by chance.
 *
 * A chain's time is measured against the rest of its run (its time over
 * the run's other time), not in milliseconds: what a loaded machine does
 * to a run — a busy core beside it, a slower clock — it does to all of
 * the run's code alike, and the ratio stays while the milliseconds move
 * by half. (A chain with less than RP_REGRESS_MIN_SAMPLES samples' worth
 * of rest in its runs, on either side — a program that is one method —
 * has nothing to be measured against: its milliseconds are.)
 *
 * A chain longer than one method is measured against its siblings, the
 * other chains one caller longer than the same shorter chain — [burn ←
 * m] against [burn ← n] and the rest of [burn] — and regresses where the
 * regressed call paths part from the unchanged ones; a method's own time,
 * [X], is measured against the rest of the run — and regresses only if
 * its milliseconds grew past the threshold as well, the rest being at
 * times little more than the process's start, which varies by itself. (A chain alone under its
 * shorter one, with under RP_REGRESS_MIN_SAMPLES samples' worth of
 * siblings, has nothing to part from: its shorter chain speaks for it.)
 *
 * What is named: each regressed chain of two methods or more by its
 * outermost method (a C method, when the path holds nothing else,
 * followed out to the Ruby method that called it); a method's own time
 * when it regressed and no longer chain of it did. Object#m and Object#n
 * both calling Object#burn, which spends its time in
 * Process.clock_gettime, with m 30% slower: [burn ← m] grew 30% against
 * [burn ← n], and Object#m is named, with that chain; [burn] grew against
 * the rest of the run too, which that explains. A method whose own code
 * got slower regresses as itself, [X], and is named.
 */
#ifndef RPERF_PROFILE_REGRESS_H
#define RPERF_PROFILE_REGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/out.h"
#include "../common/stack_table.h"
#include "../common/strtab.h"
#include "profile.h"

#define RP_REGRESS_MIN_SHARE 0.01
#define RP_REGRESS_MIN_SAMPLES 50
#define RP_REGRESS_ALPHA 0.05
/* the one-sided normal quantile of RP_REGRESS_ALPHA, for the power said */
#define RP_REGRESS_ALPHA_Z 1.645
/* A method's own time as a whole, [X], against the rest of its run: the
 * two terms are different stretches of the run (the work, and what is
 * left — at times little more than the process's start), which a loaded
 * machine can slow by different amounts, so that the same program can
 * rank apart on two sides drawn at different times (twice in CI at 0.05,
 * p 0.048 both times); a longer chain is measured against its siblings,
 * called in the same stretch, which the machine slows alike. Five runs a
 * side still reach it (their least p is 0.004). */
#define RP_REGRESS_ALPHA_WHOLE 0.01

typedef struct rp_regress_side {
    int64_t **chain_ns; /* per run: ns per chain id (up to lens[run]) */
    size_t *lens;
    int64_t *totals; /* per run: all its time */
    int64_t *ticks;  /* per run: the time one sample stands for (ns) */
    size_t runs, cap;
} rp_regress_side;

typedef struct rp_regress_chain {
    uint32_t parent; /* the chain one caller shorter; RP_IDX_NONE for a method's self time */
    uint32_t name;   /* its outermost method (name id) */
} rp_regress_chain;

typedef struct rp_regression {
    uint32_t chain;            /* the regressed chain (leaf method first) */
    uint32_t method;           /* the method named: the chain's outermost (name id) */
    double base_ms, target_ms; /* the chain's medians per run */
    double growth_pct;         /* of the medians, as measured (against the rest, or in ms) */
    double p;                  /* the larger of the rank test's and the sampling noise's */
    bool in_ms;                /* measured in milliseconds (no rest to measure it against) */
} rp_regression;

typedef struct rp_regress {
    double pct;
    rp_strtab names;       /* method names */
    rp_stack_table chains; /* (shorter chain + 1 or 0, name): a chain's id */
    rp_regress_chain *chain; /* per chain id */
    size_t chains_cap;
    rp_regress_side base, target;
    rp_regression *found; /* most regressed first */
    size_t found_count, compared;
    /* The noise of the runs: the median over compared chains of the
     * spread of a chain's time from run to run (a fraction, e.g. 0.03),
     * and the least growth found 4 times in 5 at that noise (percent; < 0:
     * none can be, too few runs). */
    double noise, detectable_pct;
} rp_regress;

void rp_regress_init(rp_regress *r, double pct);
void rp_regress_free(rp_regress *r);

/* One run of a side (its profile). Returns 0, or -1 when out of memory. */
int rp_regress_add_run(rp_regress *r, bool target, const rp_profile *p);

/* Tests every chain and names the regressed methods. Returns 0, or -1
 * when out of memory. */
int rp_regress_compute(rp_regress *r);

/* The exact (or, past 2,500 pairs, normal) one-sided p of a Mann–Whitney
 * U at least `u` with samples of n and m (ties as halves). */
double rp_mann_whitney_p(double u, size_t n, size_t m);

/* The verdict as text (or JSON). Returns 0, or -1 when out of memory. */
int rp_regress_write(rp_out *out, const rp_regress *r, bool json);

#endif
