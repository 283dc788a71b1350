/*
 * agent/sampling/sampler.h — taking samples at Ruby safepoints.
 *
 * Owns: the postponed job that the timer triggers, the weighting of each
 * sample by the time its thread spent since its previous sample for the
 * recording it is for (thread CPU clock in cpu mode, monotonic clock in
 * wall mode: recording.h), and the threads' clocks per recording.
 */
#ifndef RPERF_AGENT_SAMPLER_H
#define RPERF_AGENT_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "../../profile/profile.h"
#include "../base/recording.h"
#include "frame_names.h"

/* Main thread, GVL held: registers the postponed job (once per process).
 * Returns 0 or -1 (already logged). */
int rp_sampler_init(void);

/* Any thread: how many runs of the sampling job have served a tick so
 * far (it only grows while a thread runs Ruby code). */
uint64_t rp_sampler_rounds_served(void);

/* Any context, async-signal-safe: a tick. Counts it for every recording
 * it is due for (recording.h) and asks Ruby to run the sampling job at
 * the next safepoint when any. */
void rp_sampler_trigger(void);

/* CLOCK_MONOTONIC in ns (vDSO: no system call). */
int64_t rp_monotonic_ns(void);

struct rp_thread;
struct rp_thread_clock;

/* GVL held: the current thread's record (NULL when out of memory, which
 * counts as a dropped sample of every accepting recording). */
struct rp_thread *rp_sampler_current_thread(void);

/* GVL held: thread `t`'s clock for recording `id`, started now when it
 * belongs to an earlier epoch (at 0 in cpu mode for a thread first seen
 * since the whole-process profile began, with no pause since: its CPU
 * time is all its own). */
struct rp_thread_clock *rp_sampler_clock(struct rp_thread *t, rp_rec_id id);

/* GVL held, as recording `id` opens or resumes: the calling thread's clock
 * for it starts now. */
void rp_sampler_start_clock(rp_rec_id id);

/* Now on the clocks a set of recordings needs: the monotonic clock (vDSO)
 * always, the thread CPU clock (a system call) only when one of them is
 * in cpu mode, and once. */
typedef struct rp_clock_reading {
    int64_t wall_ns;
    int64_t cpu_ns; /* valid when has_cpu */
    bool has_cpu;
    bool cpu_from_tick; /* cpu_ns is the ticker's reading (tick_cpu.h) */
    int64_t tick_wall_ns; /* when the ticker read it (CLOCK_MONOTONIC) */
} rp_clock_reading;

/* The reading's value on recording `id`'s clock (reading thread `t`'s CPU
 * clock the first time it is needed; `t` is the calling thread). */
int64_t rp_clock_reading_for(rp_clock_reading *now, struct rp_thread *t, rp_rec_id id);

/* GVL held: adds to `charges` (room for RP_CHARGES_MAX) the time of
 * thread `t` since its previous sample for recording `id`, as running
 * time, and restarts that clock at `now`. Returns the number of charges
 * added (0 or 1). */
struct rp_charge;
/* GVL held, on thread `t`: the agent read its CPU clock (thread_cpu.h):
 * `cpu_ns` at `at_ns` (CLOCK_MONOTONIC); kept when it is the newest. */
void rp_sampler_cpu_seen(struct rp_thread *t, int64_t cpu_ns, int64_t at_ns);

int rp_sampler_charge(struct rp_thread *t, rp_rec_id id, rp_clock_reading *now,
                      struct rp_charge *charges);

/* GVL held: charges the calling thread's time since its previous sample
 * for recording `id` to its stack now, without a trigger (so not counted
 * as a sample): the end of an Rperf.profile block that pauses sampling, or
 * the edge of a window, which would otherwise fall at the next tick. */
void rp_sampler_charge_current(rp_rec_id id);

/* The features above the sampling core (requests, allocations) plug in
 * here, so that the core calls none of them by name. Main thread, GVL
 * held, at start; NULL: none.
 *
 * keep_capture: for a capture with `n` charges on thread `t` (GVL held):
 * true when the feature took it (a request keeps its thread's samples
 * until it ends), false to capture it as usual.
 * after_round: after each round of the sampling job, at `now_ns`. */
typedef bool rp_keep_capture_fn(const struct rp_thread *t, const struct rp_charge *charges, int n);
typedef void rp_after_round_fn(int64_t now_ns);
void rp_sampler_set_keep_capture(rp_keep_capture_fn *fn);
void rp_sampler_set_after_round(rp_after_round_fn *fn);

/* Main thread at start: `fn` runs at the end of every job that served a
 * tick, after rp_sampler_rounds_served counted it (worker.c: a job served
 * while ticks are paused for idleness starts them again). */
void rp_sampler_set_on_served(void (*fn)(void));

/* GVL held: records `charges` on the current stack, captured once, with
 * the thread's number and labels (used by the sampling job and the GVL
 * and GC trackers); counts what was dropped or cut for each recording. */
void rp_sampler_record(struct rp_thread *t, const struct rp_charge *charges, int n);

/* GVL held, on a thread whose frames are gone — at its end (THREAD_END
 * event hook) or the process's (the whole-process profile's end): its
 * time since its last sample for each accepting recording is charged to
 * the stack of that sample. A thread's last stretch would otherwise be
 * lost whenever a tick comes late (a busy machine starves the ticker
 * thread): the CPU of four short threads came out 24% short under three
 * busy loops, and a program's last 50 ms of work once kept 6 ms. */
void rp_sampler_charge_tail(void);

/* GVL held, in a compaction of the frame names (frame_names.h): the
 * threads' last stacks, renumbered. */
void rp_sampler_renumber_frame_names(rp_frame_name_fn *fn);

/* GVL held, after a capture the agent made on thread `t` since the clock
 * reading `since` (its charges'): that time counts as sampling time of
 * the recordings `served` marks, and is no program time: every accepting
 * recording's clock of the thread skips it, so that the program's next
 * sample — after a GVL switch or GC often a different method — is not
 * charged for the agent's work. Measured on the vDSO clock; a cpu-mode
 * clock skips at most 20 µs of it (the rest is the OS's preemption). */
void rp_sampler_own_time(struct rp_thread *t, const bool served[RP_RECORDINGS],
                         const rp_clock_reading *since);

/* Fork child: the parent's ticks are not this process's. */
void rp_sampler_after_fork(void);

#endif
