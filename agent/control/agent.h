/*
 * agent/control/agent.h — the agent as the Rperf API (api.c) sees it.
 *
 * Owns: nothing new; these are agent.c's answers about the profiles being
 * taken in this process (the whole process's and a session's:
 * recording.h). Context: a Ruby thread holding the GVL.
 */
#ifndef RPERF_AGENT_CONTROL_AGENT_H
#define RPERF_AGENT_CONTROL_AGENT_H

#include <stdbool.h>
#include <sys/types.h>

#include "../../profile/profile.h"
#include "../base/config.h"
#include "../base/recording.h"
#include "../profiles/window.h"

/* Whether the whole process is being profiled now (false in a dormant
 * process, in a fork child that is not followed, and once the profile has
 * been written). */
bool rp_agent_profiling(void);

const rp_config *rp_agent_config(void);

/* The whole-process session's directory (absolute), or NULL in a dormant
 * process. */
const char *rp_agent_session_dir(void);

/* What a session of the Rperf API asks for. */
typedef struct rp_session_opts {
    rp_rec_config rec;
} rp_session_opts;

/* A session (RP_REC_SESSION) begins now with its own settings, beside the
 * whole-process profile if one is taken: its own tables and counters,
 * starting the worker and hooks in a dormant process. Returns 0, or -1
 * (one is open already, the agent does not run, or the worker could not
 * start). */
int rp_agent_session_open(const rp_session_opts *o);
/* The session ends: its data is gone (build it first); in a dormant
 * process the worker and the hooks stop too. */
void rp_agent_session_close(void);
bool rp_agent_session_is_open(void);
/* In a fork child: whether the parent had a session open at fork (the
 * session ended there, with the fork); true once. */
bool rp_agent_take_session_at_fork(void);

/* Every thread's labels are none from now on (a session's beginning and
 * end, as in the gem). */
void rp_agent_clear_labels(void);

/* A window of recording `id` starting now. Returns 0, or -1 (out of
 * memory; `w` unchanged). */
int rp_agent_open_window(rp_rec_id id, rp_window *w);

/* Builds the profile of window `w` of recording `id` (NULL, or one of an
 * earlier recording: the recording's whole so far) without stopping
 * anything. Returns 0 or -1 (one line printed; `p` must be freed either
 * way). */
int rp_agent_build_window(rp_rec_id id, const rp_window *w, rp_profile *p);

/* The session's samples so far as a part of it (its Nth, numbered from
 * 1): built, then its tables emptied and its counters restarted, so that
 * a session's memory stays within its bound however long it runs
 * (RPERF_MAX_STACKS) and snapshot(clear: true) begins afresh. Returns 0
 * or -1 (one line printed; `p` must be freed either way, and the session
 * goes on from where it was). */
int rp_agent_take_session_part(rp_profile *p);

/* The extension's taker of the parts the session's stack table fills
 * (it merges them into what the session returns): called with each part,
 * which it then owns, from a postponed job. NULL: none, and past its
 * bound the session's new stacks count on the capped stack. */
void rp_agent_set_session_sink(void (*sink)(rp_profile *part));

/* The thread folding (aggregator.h's on_filled, async-signal-safe): the
 * session's stack table is nearly full. Returns whether a part was asked
 * for. */
bool rp_agent_session_filled(void);

#endif
