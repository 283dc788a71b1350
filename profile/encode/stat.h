/*
 * profile/encode/stat.h — the `stat` summary (the rperf gem 0.9 `rperf stat` layout).
 *
 * Owns: the summary of a merged session: user/sys/real, the [Rperf] time
 * breakdown by VM state label, [Ruby ] GC and allocation lines, [OS   ]
 * memory, page fault, context switch and disk lines, the optional report
 * tables, and the samples/overhead footer.
 */
#ifndef RPERF_PROFILE_STAT_H
#define RPERF_PROFILE_STAT_H

#include <stdbool.h>

#include "../../common/out.h"
#include "../profile.h"
#include "../vm_state.h"

/* The weight of `p`'s samples in each VM state (sums, ns); returns the
 * weight of all of them. */
int64_t rp_stat_state_totals(const rp_profile *p, int64_t sums[RP_VM_STATE_COUNT]);

/* What profiling cost, in per cent of the run's real time (summed over
 * its processes): the time inside the sampling job on the program's
 * threads, and the CPU time of the agent's worker thread (its ticks,
 * folding samples, writing parts; 0 in files without it, the gem's). */
typedef struct rp_overhead {
    double total_pct, sampling_pct, worker_pct;
    char parts[80]; /* " (sampling 0.7%, the agent's threads 4.1% CPU)", or "" */
} rp_overhead;
rp_overhead rp_stat_overhead(const rp_meta *m);

/* Writes the summary; `with_report` adds the Flat and Cumulative tables,
 * `top` rows each (the gem prints 50). Returns 0, or -1 when out of
 * memory. */
int rp_stat_write(const rp_profile *p, rp_out *out, bool with_report, int top);

#endif
