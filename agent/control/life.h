/*
 * agent/control/life.h — the agent's start in a process. See life.c.
 *
 * Context: GVL held, on a Ruby thread (remote.c's command job).
 */
#ifndef RPERF_AGENT_CONTROL_LIFE_H
#define RPERF_AGENT_CONTROL_LIFE_H

#include <stdbool.h>

/* Whether the agent has started in this process (at boot, or attached). */
bool rp_agent_started(void);

/* Loaded late by rperf attach: starts the agent dormant, as with
 * RPERF_ENABLED=0, with nothing of the program's changed (no message on
 * its stderr, nothing on $LOAD_PATH, no variable for its children).
 * Returns 0, or -1 when the agent cannot run here. */
int rp_agent_start_attached(void);
bool rp_agent_attached(void);

#endif
