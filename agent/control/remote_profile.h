/*
 * agent/control/remote_profile.h — a profile begun from outside: rperf
 * attach and rperf ctl (the commands remote.c hands over).
 *
 * Owns: starting a dormant agent's whole-process profile into a directory
 * the command names, stopping it, a snapshot of it, its safety net (it
 * ends when the rperf that started it is gone, or after its time limit),
 * and the status rperf ctl shows. Context: GVL held, on a Ruby thread.
 */
#ifndef RPERF_AGENT_CONTROL_REMOTE_PROFILE_H
#define RPERF_AGENT_CONTROL_REMOTE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../base/config.h"

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

/* The worker's periodic call as the whole profile wants it: parts with
 * RPERF_INTERVAL, the safety net of a remote profile, or none. */
void rp_remote_profile_set_rotation(void);

#endif
