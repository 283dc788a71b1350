/*
 * agent/vm/threads.h — what the agent knows about each Ruby thread.
 *
 * Owns: the per-thread record (a clock per recording at its previous
 * sample, its CPU clock (thread_cpu.h), the GVL timestamps, thread_seq, the thread's labels),
 * found through Ruby's thread-specific storage, created when a thread is
 * first seen and recycled when it exits; thread numbering 1, 2, ... in the
 * order threads are first seen.
 */
#ifndef RPERF_AGENT_THREADS_H
#define RPERF_AGENT_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/recording.h"
#include "../base/ruby_api.h"
#include "thread_cpu.h"

/* A thread's clock for one recording (recording.h), at its previous
 * sample for that recording. */
typedef struct rp_thread_clock {
    int64_t prev_ns;      /* the recording's clock (its mode's) */
    int64_t prev_wall_ns; /* CLOCK_MONOTONIC at the same moment (cpu mode) */
    /* Time not yet recorded (recorded once it is worth a stack capture). */
    int64_t pending_blocked_ns, pending_wait_ns; /* cpu mode: blocked is CPU off the GVL */
    int64_t pending_gc_mark_ns, pending_gc_sweep_ns;
    uint32_t epoch;       /* the recording's clock epoch it was started in */
} rp_thread_clock;

typedef struct rp_thread {
    rp_thread_clock clock[RP_RECORDINGS];
    rp_thread_cpu cpu;    /* its CPU clock, whatever native thread runs it */
    int64_t suspended_ns; /* CLOCK_MONOTONIC when it released the GVL, or 0 */
    int64_t ready_ns;     /* CLOCK_MONOTONIC when it asked for the GVL back, or 0 */
    int64_t resumed_ns;   /* CLOCK_MONOTONIC when it last took the GVL back (sampler.c: a
                           * tick before it came while the thread was off the GVL) */
    /* The last reading of its CPU clock (thread_cpu.h) the agent made and
     * when (CLOCK_MONOTONIC), and its CPU clock when it released the GVL:
     * read then, or at most the last reading plus the wall time since
     * (gvl_gc.c). */
    int64_t cpu_seen_ns, cpu_seen_at_ns, suspended_cpu_ns;
    bool sampled;         /* a tick has taken a sample of it (sampler.c) */
    uint32_t thread_seq;  /* 1-based, in the order first seen */
    uint32_t generation;  /* profile generation the record belongs to */
    uint32_t seen_epoch;  /* the newest clock epoch when it was first seen (sampler.h) */
    /* Set by the Rperf API (api.c); kept across a fork, like the thread. */
    uint32_t label_set;     /* the thread's labels: id in labels.h's store, 0 = none */
    uint32_t profile_depth; /* Rperf.profile blocks the thread is inside */
    /* What the thread spent off the GVL and in GC since first seen, kept
     * while requests are recorded (spans.h): blocked (released until
     * ready), waiting for the GVL (ready until resumed), in GC. */
    int64_t acct_blocked_ns, acct_wait_ns, acct_gc_ns;
    struct rp_thread_spans *spans; /* the requests open on its fibers (spans.c), or NULL */
    /* Its last captured stack, leaf first (sampler.c charges its time
     * since its last sample there when it ends): RP_STACK_MAX frames and
     * lines allocated at its first capture, kept by a recycled record. */
    uint32_t *last_frames;
    int *last_lines;
    uint32_t last_depth; /* 0: none in this generation */
    bool last_has_lines; /* last_lines holds its lines (RPERF_LINES) */
    VALUE thread;         /* the Ruby Thread (not marked: only compared) */
    struct rp_thread *next_free;
    struct rp_thread *next_record; /* every record ever allocated */
} rp_thread;

/* Main thread, GVL held: creates the storage key and the exit hook.
 * Returns 0 or -1 (already logged). */
int rp_threads_init(void);

/* Postponed job or main thread (GVL held): the record of the current
 * thread, created on first sight with *is_new set; NULL when out of memory.
 * A new record's clocks belong to no epoch — the sampler starts them. A
 * record of an earlier generation (the thread that forked) is renewed but
 * keeps its labels. */
rp_thread *rp_threads_current(bool *is_new);

/* Any context (thread event hooks without the GVL included): the record of
 * `thread` if it has a current one, else NULL. Never allocates. */
rp_thread *rp_threads_find(VALUE thread);

/* GVL held: calls fn on every record, of live and exited threads alike. */
void rp_threads_each(void (*fn)(rp_thread *t, void *arg), void *arg);

/* Records allocated so far (exited threads' records are reused). */
size_t rp_threads_allocated(void);

/* GVL held: number of threads seen in this profile generation. */
uint32_t rp_threads_detected(void);

/* Fork child, before any other thread exists: starts a new generation, so
 * every record is re-initialised on its next sighting and numbering starts
 * again from 1. */
void rp_threads_new_generation(void);


#endif
