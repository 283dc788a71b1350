/*
 * agent/base/recording.h — the profiles being taken at once.
 *
 * Owns: the recordings of this process and their settings, schedules and
 * counters. RP_REC_WHOLE is the whole process's profile, configured by
 * RPERF_* (absent in a dormant process, RPERF_ENABLED=0); RP_REC_SESSION
 * is a session of the Rperf API, from Rperf.start to Rperf.stop, with the
 * mode, sampling rate, aggregation and deferral it asked for. Both may run
 * at once and neither sees the other: each has its own tables
 * (aggregator.h), counters and tick schedule, and each thread keeps one
 * clock per recording (threads.h).
 *
 * One timer ticks at the highest rate any recording wants (worker.h);
 * at each tick a recording whose own period has passed counts a trigger,
 * and the sampling job serves every recording with a trigger pending,
 * with one stack capture for all of them (sampler.h).
 *
 * Contexts: opened, closed, paused and resumed on a Ruby thread holding
 * the GVL; `accepting`, the schedule and trigger_count are also read and
 * written by the tick (signal handler on the worker, or the worker's
 * ticker loop), through atomics only.
 */
#ifndef RPERF_AGENT_RECORDING_H
#define RPERF_AGENT_RECORDING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../profile/profile.h"

typedef enum rp_rec_id { RP_REC_WHOLE = 0, RP_REC_SESSION = 1, RP_RECORDINGS = 2 } rp_rec_id;

/* What a recording measures, as asked for. */
typedef struct rp_rec_config {
    rp_mode mode;
    int frequency;  /* Hz */
    bool aggregate; /* else one record per sample (raw) */
    bool deferred;  /* samples only while some Rperf.profile block is open */
    long alloc_rate; /* one allocation in N sampled (allocations.h), 0: none */
} rp_rec_config;

/* Counters of one recording (README, "Profile file format"). */
typedef struct rp_sampler_stats {
    uint64_t trigger_count;    /* ticks that were due for this recording */
    uint64_t ticks_served;     /* of them, those a sampling job has seen */
    uint64_t sampling_count;   /* samples it took at those ticks (in cpu mode, one
                                * per period of the thread's CPU time at most) */
    uint64_t sampling_time_ns; /* time spent taking them */
    uint64_t dropped_samples;  /* samples lost: buffers full or no memory */
    uint64_t truncated_samples;/* stacks cut at the capture depth */
} rp_sampler_stats;

typedef struct rp_recording {
    rp_rec_config cfg;
    bool open;                /* between rp_recording_open and _close */
    atomic_bool accepting;    /* open and not paused: hooks and ticks serve it */
    _Atomic int64_t period_ns; /* 1 s / frequency; read by the tick */
    int64_t min_charge_ns;    /* half a period: shorter charges wait for more */
    _Atomic int64_t next_tick_ns;      /* CLOCK_MONOTONIC when its next tick is due */
    atomic_uint_fast64_t trigger_count; /* written by the tick */
    rp_sampler_stats stats;   /* but trigger_count: written by the GVL holder */
    /* Clock epochs: a thread's clock for this recording is valid only in
     * the epoch it was started in. Opening begins one, and so does each
     * resume after a pause, so no paused time is ever charged. */
    uint32_t clock_epoch, open_epoch;
} rp_recording;

rp_recording *rp_recording_get(rp_rec_id id);

/* GVL held: recording `id` begins now with `cfg`: counters from zero,
 * paused when `paused`. The calling thread's clock starts now; others'
 * at their first sample (cpu mode: from 0 for a thread born since, its
 * CPU time all its own). */
void rp_recording_open(rp_rec_id id, const rp_rec_config *cfg, bool paused);
/* GVL held: takes no more samples. */
void rp_recording_close(rp_rec_id id);
/* GVL held: stops / starts taking samples (deferral); resuming begins a
 * new clock epoch. Idempotent. */
void rp_recording_pause(rp_rec_id id);
void rp_recording_resume(rp_rec_id id);

/* The newest clock epoch of any recording. */
uint32_t rp_recordings_epoch(void);

/* GVL held: a count that changes whenever a recording starts or stops
 * accepting samples (allocations.c re-arms its countdown on it; read on
 * every allocation, so a variable rather than a call). */
extern uint32_t rp_recordings_accepting_changed;

/* Whether any recording is open. */
bool rp_recordings_any_open(void);
/* Any thread: whether a recording in cpu mode accepts samples. */
bool rp_recordings_any_cpu_accepting(void);
/* The highest frequency of the accepting recordings, or 0 when none is:
 * the rate the timer must tick at. */
int rp_recordings_tick_frequency(void);

/* Async-signal-safe, at a tick read at `now` (CLOCK_MONOTONIC): counts a
 * trigger for every accepting recording whose period has passed. Returns
 * whether any did. */
bool rp_recordings_tick(int64_t now);

/* Counters of recording `id` now. */
rp_sampler_stats rp_recording_stats(rp_rec_id id);

/* Fork child: every recording is closed and its counters restart. */
void rp_recordings_after_fork(void);

#endif
