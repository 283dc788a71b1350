/*
 * agent/control/agent.h — the agent as the Rperf API (api.c) sees it.
 *
 * Owns: nothing new; these are agent.c's answers about the profiles being
 * taken in this process (the whole process's and a session's:
 * recording.h). Context: a Ruby thread holding the GVL.
 */
#ifndef RPERF_AGENT_AGENT_H
#define RPERF_AGENT_AGENT_H

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
    int signal; /* the timer signal when the session starts the worker:
                 * -1 the agent's (RPERF_SIGNAL), 0 the sleeping ticker */
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

/* --- commands from outside (remote.c); GVL held ------------------------- */

/* Whether the agent has started in this process (at boot, or attached). */
bool rp_agent_started(void);

/* Loaded late by rperf attach: starts the agent dormant, as with
 * RPERF_ENABLED=0, with nothing of the program's changed (no message on
 * its stderr, nothing on $LOAD_PATH, no variable for its children).
 * Returns 0, or -1 when the agent cannot run here. */
int rp_agent_start_attached(void);
bool rp_agent_attached(void);

/* "dormant", "recording", ... for rperf ctl PID status. */
const char *rp_agent_status(void);

typedef struct rp_remote_start {
    const char *dir; /* the session directory rperf made for this process */
    rp_mode mode;
    int frequency;
    long alloc_rate;
    pid_t watch_pid; /* the profile ends when this process is gone (0: none) */
    long limit_s;    /* ... or after this many seconds (0: none) */
} rp_remote_start;

/* A whole-process profile begins now, into o->dir: fork children follow
 * as at boot; the agent must be dormant. Returns 0, or -1 with why[]. */
int rp_agent_remote_start(const rp_remote_start *o, char *why, size_t size);

/* The whole-process profile ends and is written (its file into path[]);
 * the agent stays dormant. Returns 0, or -1 with why[]. */
int rp_agent_remote_stop(char *path, size_t size, char *why, size_t wsize);

/* The whole-process profile so far, written into `dir` (path[]), while
 * it goes on. Returns 0, or -1 with why[]. */
int rp_agent_remote_snapshot(const char *dir, char *path, size_t size, char *why, size_t wsize);

#endif
