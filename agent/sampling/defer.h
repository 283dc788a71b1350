/*
 * agent/sampling/defer.h — sampling only inside Rperf.profile blocks.
 *
 * Owns: how many profile blocks are open in the process (each thread
 * counts its own in rp_thread.profile_depth; the sum is kept here), and
 * pausing and resuming the deferred recordings (rp_rec_config.deferred:
 * RPERF_DEFER=1 for the whole process, Rperf.start(defer: true) for a
 * session) as the first block opens and the last closes. A deferred
 * recording samples only while a block is open; when no recording wants
 * ticks the timer does not tick at all, so a paused process pays nothing.
 * Context: GVL held (the Rperf API, a recording's beginning, a fork
 * child's restart).
 */
#ifndef RPERF_AGENT_DEFER_H
#define RPERF_AGENT_DEFER_H

#include <stdbool.h>
#include <stdint.h>

struct rp_thread;

/* Whether a recording opened deferred now begins paused (no block open). */
bool rp_defer_pauses(void);

/* A profile block of thread `t` begins / ends: the first open block of the
 * process resumes the deferred recordings, the last one closed pauses them
 * (charging each its last stretch first). */
void rp_defer_enter(struct rp_thread *t);
void rp_defer_leave(struct rp_thread *t);

/* Fork child, before its recordings begin: the blocks open are those of
 * the thread that forked, `forking` (NULL when unknown), the only one here. */
void rp_defer_after_fork(const struct rp_thread *forking);

#endif
