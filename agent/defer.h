/*
 * agent/defer.h — sampling only inside Rperf.profile blocks.
 *
 * Owns: whether the process is deferred (RPERF_DEFER=1, or from
 * Rperf.start(defer: true) until Rperf.stop) and how many profile blocks
 * are open in it (each thread counts its own in rp_thread.profile_depth;
 * the sum is kept here). A deferred process samples only while a block is
 * open: otherwise its timer does not tick and the sampler takes nothing,
 * so it pays no sampling cost at all.
 * Context: GVL held (the Rperf API, a profile's beginning, a fork child's
 * restart).
 */
#ifndef RPERF_AGENT_DEFER_H
#define RPERF_AGENT_DEFER_H

#include <stdbool.h>
#include <stdint.h>

struct rp_thread;

/* At start: deferred by configuration (RPERF_DEFER). */
void rp_defer_init(bool deferred);

/* Whether sampling is to be paused now (deferred, no block open). */
bool rp_defer_pauses(void);

/* A profile is beginning with sampling paused or not as rp_defer_pauses
 * said: the state the next change starts from. */
void rp_defer_note_begin(bool paused);

/* Rperf.start(defer: true) sets it for its window; Rperf.stop puts back
 * the configured value (`on` false). Pauses or resumes at once. */
void rp_defer_set_window(bool on);

/* A profile block of thread `t` begins / ends: the first open block of the
 * process resumes sampling, the last one closed pauses it again. */
void rp_defer_enter(struct rp_thread *t);
void rp_defer_leave(struct rp_thread *t);

/* Fork child, before its profile begins: the blocks open are those of the
 * thread that forked, `forking` (NULL when unknown), the only one here. */
void rp_defer_after_fork(const struct rp_thread *forking);

#endif
