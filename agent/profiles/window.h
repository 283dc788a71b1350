/*
 * agent/profiles/window.h — a stretch of the profile, from a start point to now.
 *
 * Owns: what a profile looked like at a moment — times, counters, and the
 * weight of every table entry — so that the part since then can be told
 * apart without taking anything out of the tables: Rperf.snapshot(clear:)
 * and Rperf.start/stop see their own window, while the profile written at
 * exit still covers the whole run. The whole run is the window opened at
 * the profile's beginning, which holds no weights.
 */
#ifndef RPERF_AGENT_WINDOW_H
#define RPERF_AGENT_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "../sampling/aggregator.h"
#include "../vm/ractors.h"
#include "../base/recording.h"

typedef struct rp_window {
    rp_rec_id recording;    /* whose (recording.h) */
    uint32_t profile;       /* which of the process's profiles (control/whole.c) */
    int64_t start_realtime_ns, start_monotonic_ns;
    rp_sampler_stats stats; /* counters at the start */
    size_t fold_dropped;    /* the aggregator's drops at the start */
    int64_t user_ns, sys_ns; /* the process's CPU time at the start (0: since it began) */
    int64_t worker_cpu_ns;   /* the agent's worker threads' at the start (worker.h) */
    int64_t ractor_ns[RP_RACTORS_MAX]; /* the Ractors' time at the start (ractors.h) */
    int64_t ractor_allocs[RP_RACTORS_MAX]; /* and their allocations */
    int64_t *weights;       /* table entry → weight at the start */
    size_t count;           /* table entries at the start */
    int64_t *alloc_weights; /* the same for the allocation samples */
    size_t alloc_count;
} rp_window;

/* GVL held: a window of recording `id` starting now with empty tables
 * (the recording's own beginning, when its counters are zero). */
void rp_window_begin_empty(rp_window *w, rp_rec_id id);

/* GVL held, tables held: a window starting now over tables just emptied
 * (the next part of a profile, RPERF_INTERVAL). */
void rp_window_begin_part(rp_window *w);

/* GVL held, tables held (rp_aggregator_hold): a window of recording `id`
 * starting now, at its tables as they are. Returns 0, or -1 when out of
 * memory (`w` is then left as it was). */
int rp_window_begin_at(rp_window *w, rp_rec_id id);

/* The weight table entry `i` gained since the window began. */
static inline int64_t rp_window_gain(const rp_window *w, size_t i, int64_t weight)
{
    return i < w->count ? weight - w->weights[i] : weight;
}

/* The objects allocation sample entry `i` gained since the window began. */
static inline int64_t rp_window_alloc_gain(const rp_window *w, size_t i, int64_t weight)
{
    return i < w->alloc_count ? weight - w->alloc_weights[i] : weight;
}

void rp_window_free(rp_window *w);

#endif
