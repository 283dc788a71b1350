/*
 * agent/control/remote_profile.c — a profile begun from outside: rperf
 * attach and rperf ctl (commands handed over by remote.c). See remote_profile.h.
 *
 * Owns: starting a dormant agent's profile into a directory the command
 * names, with the mode and rate it asks for; stopping it (the agent stays,
 * dormant, for the next start) or writing a snapshot of it; its safety
 * net — it ends when the rperf that started it is gone, or after its time
 * limit; and the worker's periodic call, which parts and this safety net
 * share.
 *
 * Context: a Ruby thread holding the GVL (a postponed job running the
 * command), unless said otherwise.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "../base/log.h"
#include "../base/ruby_api.h"
#include "../sampling/sampler.h"
#include "../sampling/worker.h"
#include "../vm/gvl_holder.h"
#include "agent.h"
#include "parts.h"
#include "remote_profile.h"
#include "whole.h"

/* cfg as it was before a remote profile, put back when it ends. */
static rp_config cfg_before_remote;
/* Its safety net, should rperf die or forget it: it ends when the rperf
 * process that started it is gone, or after its time limit. */
static pid_t remote_watch_pid;
static int64_t remote_until_ns;
static rb_postponed_job_handle_t remote_end_job = POSTPONED_JOB_HANDLE_INVALID;

/* Any thread (async-signal-safe: kill(2)): the rperf that started the
 * remote profile is gone. */
static bool remote_watcher_gone(void)
{
    return remote_watch_pid && kill(remote_watch_pid, 0) != 0 && errno == ESRCH;
}

/* Worker thread, once a second while a remote profile runs (the slot of
 * RPERF_INTERVAL's parts, which a remote profile does not use).
 * Async-signal-safe: kill(2) and a postponed-job trigger. */
static void check_remote_profile(void)
{
    bool gone = remote_watcher_gone();
    bool late = remote_until_ns && rp_monotonic_ns() > remote_until_ns;
    if (gone || late) {
        rb_postponed_job_trigger(remote_end_job);
        rp_gvl_holder_interrupt();
    }
}

/* The worker's periodic call as the whole profile wants it: parts with
 * RPERF_INTERVAL, the safety net of a remote profile, or none. */
void rp_remote_profile_set_rotation(void)
{
    if (agent.remote_profile)
        rp_worker_set_rotation(1000000000LL, check_remote_profile);
    else if (!agent.cfg.dormant && agent.cfg.interval)
        rp_worker_set_rotation(agent.cfg.interval * 1000000000LL, rp_parts_ask);
    else
        rp_worker_set_rotation(0, NULL);
}

/* Postponed job — a Ruby thread, GVL held: the rperf that started the
 * remote profile is gone, or its time is up; it ends and is written, and
 * the agent's log says where. */
static void end_remote_profile(void *unused)
{
    (void)unused;
    if (!agent.remote_profile || atomic_load(&agent.state) != AGENT_ACTIVE || getpid() != agent.owner_pid)
        return;
    bool gone = remote_watcher_gone();
    char path[RP_PATH_MAX + 64], why[RP_PATH_MAX + 256];
    if (rp_agent_remote_stop(path, sizeof(path), why, sizeof(why)) == 0)
        rp_log("the recording ended: %s; its profile is %s",
               gone ? "the rperf that started it is gone" : "its time limit passed", path);
}

const char *rp_agent_status(void)
{
    switch (atomic_load(&agent.state)) {
    case AGENT_ACTIVE:
        return agent.remote_profile ? "recording" : "recording the whole process";
    case AGENT_DORMANT:
        return rp_agent_session_is_open() ? "dormant, a session of the Rperf API recording" : "dormant";
    default:
        return "off";
    }
}

int rp_agent_remote_start(const rp_remote_start *o, char *why, size_t size)
{
    rp_whole_restart_in_fork_child(NULL);
    int now = atomic_load(&agent.state);
    if (agent.stood_aside) {
        snprintf(why, size, "the rperf gem's own profiler started in this process: the agent stood "
                 "aside here");
        return -1;
    }
    if (now == AGENT_ACTIVE) {
        snprintf(why, size, agent.remote_profile ? "already recording (stop it with: rperf ctl %ld stop)"
                                           : "this process is profiled from its start already",
                 (long)getpid());
        return -1;
    }
    if (now != AGENT_DORMANT) {
        snprintf(why, size, "the agent is off in this process (a bad RPERF_* value, or its profile ended)");
        return -1;
    }
    if (rp_agent_session_is_open()) {
        snprintf(why, size, "a session of the Rperf API is recording (Rperf.start); it must stop first");
        return -1;
    }
    rp_session chosen;
    const char *reason = rp_session_use(&chosen, o->dir);
    if (reason) {
        snprintf(why, size, "cannot use directory %s: %s", o->dir, reason);
        return -1;
    }
    cfg_before_remote = agent.cfg;
    agent.session = chosen;
    agent.cfg.mode = o->mode;
    agent.cfg.frequency = o->frequency;
    agent.cfg.alloc_rate = o->alloc_rate;
    agent.cfg.interval = 0;
    agent.cfg.defer = false;
    agent.cfg.quiet = true;
    agent.cfg.dormant = false;
    agent.remote_profile = true;
    remote_watch_pid = o->watch_pid;
    remote_until_ns = o->limit_s > 0 ? rp_monotonic_ns() + o->limit_s * 1000000000LL : 0;
    if (remote_end_job == POSTPONED_JOB_HANDLE_INVALID)
        remote_end_job = rb_postponed_job_preregister(0, end_remote_profile, NULL);
    rp_remote_profile_set_rotation();
    rp_whole_begin_profile();
    if (atomic_load(&agent.state) != AGENT_ACTIVE) {
        agent.cfg = cfg_before_remote;
        agent.remote_profile = false;
        rp_remote_profile_set_rotation();
        atomic_store(&agent.state, AGENT_DORMANT);
        snprintf(why, size, "the sampling thread could not start");
        return -1;
    }
    return 0;
}

int rp_agent_remote_stop(char *path, size_t size, char *why, size_t wsize)
{
    if (atomic_load(&agent.state) != AGENT_ACTIVE || getpid() != agent.owner_pid) {
        snprintf(why, wsize, "not recording");
        return -1;
    }
    rp_whole_end_whole_profile(false);
    if (agent.remote_profile)
        agent.cfg = cfg_before_remote;
    agent.remote_profile = false;
    rp_remote_profile_set_rotation();
    /* The agent stays, dormant, for the next start. */
    atomic_store(&agent.state, AGENT_DORMANT);
    if (!agent.last_written[0]) {
        snprintf(why, wsize, "the profile could not be written (see the agent's log)");
        return -1;
    }
    snprintf(path, size, "%s", agent.last_written);
    return 0;
}

int rp_agent_remote_snapshot(const char *dir, char *path, size_t size, char *why, size_t wsize)
{
    if (atomic_load(&agent.state) != AGENT_ACTIVE || getpid() != agent.owner_pid) {
        snprintf(why, wsize, "not recording");
        return -1;
    }
    rp_session into;
    const char *reason = rp_session_use(&into, dir);
    if (reason) {
        snprintf(why, wsize, "cannot use directory %s: %s", dir, reason);
        return -1;
    }
    rp_profile p;
    int rc = rp_agent_build_window(RP_REC_WHOLE, NULL, &p);
    if (rc == 0) {
        rp_write_request req = rp_whole_write_request(&agent.whole);
        req.session = &into;
        rc = rp_writer_save(&req, &p, path, size, why, wsize);
    } else {
        snprintf(why, wsize, "the profile could not be built (see the agent's log)");
    }
    rp_profile_free(&p);
    return rc;
}

