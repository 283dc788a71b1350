/*
 * agent/sampler.h — taking samples at Ruby safepoints.
 *
 * Owns: the postponed job that the timer triggers, the weighting of each
 * sample by the time its thread spent since its previous sample (thread
 * CPU clock in cpu mode, monotonic clock in wall mode), and the sampling
 * statistics (README, "Profile file format").
 */
#ifndef RPERF_AGENT_SAMPLER_H
#define RPERF_AGENT_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "../profile/profile.h"

typedef struct rp_sampler_stats {
    uint64_t trigger_count;    /* timer ticks that asked for a sample */
    uint64_t sampling_count;   /* postponed jobs that took a sample */
    uint64_t sampling_time_ns; /* time spent inside those jobs */
    uint64_t dropped_samples;  /* samples lost: buffers full or no memory */
    uint64_t truncated_samples;/* stacks cut at the capture depth */
} rp_sampler_stats;

/* Main thread, GVL held: registers the postponed job (once per process).
 * Returns 0 or -1 (already logged). */
int rp_sampler_init(rp_mode mode, int frequency);

/* GVL held: starts accepting samples; the calling thread's clock starts
 * now, so time before this point is not attributed. Other threads' clocks
 * start at their first sample (cpu mode: from 0, a new thread's CPU time
 * being all its own). */
void rp_sampler_start(void);
/* GVL held: further triggers take no sample. */
void rp_sampler_stop(void);

/* GVL held: accepting samples again after rp_sampler_stop paused them
 * (RPERF_DEFER: outside Rperf.profile blocks). A new clock epoch begins:
 * the calling thread's clock starts now and every other thread's at its
 * next sample, so no paused time is ever charged. */
void rp_sampler_resume(void);

/* Any context, async-signal-safe: counts a tick and asks Ruby to run the
 * sampling job at the next safepoint. */
void rp_sampler_trigger(void);

/* The mode's clock for the calling thread, in ns. */
int64_t rp_sampler_clock_ns(void);

/* Whether samples are being taken (hooks check it before doing anything). */
bool rp_sampler_is_accepting(void);

struct rp_thread;

/* GVL held: the current thread's record; a record seen for the first time
 * in this clock epoch has its clock started (at 0 in cpu mode for a thread
 * new since the profile began: its CPU time is all its own; else now).
 * NULL when out of memory (counted as a dropped sample). */
struct rp_thread *rp_sampler_current_thread(void);

/* CLOCK_MONOTONIC in ns (vDSO: no system call). */
int64_t rp_monotonic_ns(void);

/* GVL held: charges the time since the thread's previous sample to the
 * current stack as running time, and restarts its clock at `now` (the
 * mode's clock), read at `wall_now` (CLOCK_MONOTONIC; the same value in
 * wall mode). The caller passes both because it has read them already. */
void rp_sampler_charge(struct rp_thread *t, int64_t now, int64_t wall_now);

/* GVL held: charges the calling thread's time since its previous sample
 * to its stack now, without a trigger (so not counted as a sample): the
 * end of an Rperf.profile block that pauses sampling, whose last stretch
 * would otherwise be lost. */
void rp_sampler_charge_current(void);

/* GVL held: records charges with explicit VM states on the current stack,
 * captured once, with the thread's number and labels (used by the GVL and
 * GC trackers). */
struct rp_charge;
void rp_sampler_record(const struct rp_thread *t, const struct rp_charge *charges, int n);

/* Charges shorter than this are left to the next sample instead of costing
 * a stack capture of their own: half a sampling period. */
int64_t rp_sampler_min_charge_ns(void);

rp_sampler_stats rp_sampler_stats_get(void);
/* Fork child: counters restart from zero. */
void rp_sampler_stats_reset(void);

#endif
