/*
 * agent/agent.h — the agent as the Rperf API (api.c) sees it.
 *
 * Owns: nothing new; these are agent.c's answers about the profile being
 * taken in this process. Context: a Ruby thread holding the GVL.
 */
#ifndef RPERF_AGENT_AGENT_H
#define RPERF_AGENT_AGENT_H

#include <stdbool.h>

#include "../profile/profile.h"
#include "config.h"
#include "window.h"

/* Whether this process is being profiled now (false in a fork child that
 * is not followed, and once the profile has been written). */
bool rp_agent_profiling(void);

const rp_config *rp_agent_config(void);

/* A window of the profile starting now. Returns 0, or -1 (out of memory;
 * `w` unchanged). */
int rp_agent_open_window(rp_window *w);

/* Builds the profile of window `w` (NULL, or one from before a fork: the
 * whole profile so far) without stopping anything. Returns 0 or -1 (one
 * line printed; `p` must be freed either way). */
int rp_agent_build_window(const rp_window *w, rp_profile *p);

#endif
