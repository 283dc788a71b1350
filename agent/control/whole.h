/*
 * agent/control/whole.h — the whole-process profile, and where the agent
 * stands in this process.
 *
 * Owns: the one record of the agent's state in this process (`agent`:
 * state, configuration, session directory, the whole-process profile being
 * taken); starting and stopping the machinery the open recordings need;
 * beginning the whole profile (at boot, in a fork child, at rperf ctl
 * start) and ending it with its file written (at exit, at exec, at rperf
 * ctl stop), with the last part's bookkeeping when it comes in parts
 * (parts.c writes the others). The lowest file of control/: the others
 * (life.c, parts.c, exec.c, agent.c, remote_profile.c) build on it.
 *
 * Context: GVL held, on a Ruby thread, unless said otherwise (`state` is
 * read from any thread).
 */
#ifndef RPERF_AGENT_CONTROL_WHOLE_H
#define RPERF_AGENT_CONTROL_WHOLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../base/config.h"
#include "../profiles/session.h"
#include "../profiles/window.h"
#include "../profiles/writer.h"

/* Not in Ruby's public headers, but exported by libruby. */
int ruby_thread_has_gvl_p(void);
#pragma weak ruby_thread_has_gvl_p

typedef enum agent_state {
    AGENT_OFF,             /* not profiling (non-Ruby process, bad config, done) */
    AGENT_DORMANT,         /* RPERF_ENABLED=0: only sessions of the Rperf API record */
    AGENT_ACTIVE,          /* the whole process is profiled; the profile belongs to owner_pid */
    AGENT_RESTART_PENDING, /* fork child waiting for its first safepoint */
} agent_state;

struct agent_life {
    atomic_int state; /* agent_state; any thread */
    pid_t owner_pid;  /* the process the whole profile belongs to */
    rp_config cfg;
    rp_session session;
    rp_window whole; /* the profile (with RPERF_INTERVAL: the part) being taken */
    uint32_t profile_serial;
    bool session_at_fork; /* a fork child whose parent had a session open */
    bool started;         /* the agent started (life.c), whatever came of it */
    bool attached;        /* loaded into a running process (rperf attach) */
    /* a profile begun by rperf attach / rperf ctl start (remote_profile.c) */
    bool remote_profile;
    /* The program put a handler of its own on the timer's signal: the
     * agent stood aside (step_aside) and takes no recording any more. */
    bool stood_aside;
    char last_written[RP_PATH_MAX + 64]; /* the file the last profile went to */
};

extern struct agent_life agent;

/* The worker and the hooks that the open recordings need, started when
 * none runs yet, ticking at their rate. */
int rp_whole_start_machinery(void);

/* When no recording is open any more, no tick, no hook and no worker
 * thread. Returns false when the worker did not stop: its tables must not
 * be touched then. */
bool rp_whole_stop_machinery_if_idle(void);

/* Opens a new profile of the whole process (at boot, in a fork child, at
 * rperf ctl start); a fresh one empties the tables and numbers threads
 * from 1 again (a fork child's, after a failed exec). */
void rp_whole_begin_profile(void);
void rp_whole_begin_fresh_profile(void);

/* Stops sampling and writes the whole-process profile; at the end of the
 * process (`at_end`, rp_whole_end_profile) a session the program did not
 * stop ends too. */
void rp_whole_end_whole_profile(bool at_end);
void rp_whole_end_profile(void);

/* What the writer needs to write `window` of the recording it is of. */
rp_write_request rp_whole_write_request(const rp_window *window);

/* Postponed job, or a call of the Rperf API: a fork child's profile
 * begins now if it has not yet. */
void rp_whole_restart_in_fork_child(void *unused);

/* Any thread: whether the caller is this process's profiled Ruby thread
 * holding the GVL (the only place an interposed libc call may write the
 * profile from). */
bool rp_whole_on_profiled_ruby_thread(void);

/* Parts (parts.c): the number of the next one, which ends for `why`; its pause on the Ruby
 * thread that built it (wall and CPU time, for RPERF_VERBOSE); how
 * writing it went (worker thread or a Ruby thread: the first failure is
 * printed, the parts lost after it counted). */
int64_t rp_whole_next_part(rp_part_end why);
void rp_whole_part_paused(int64_t pause_ns, int64_t cpu_ns);
void rp_whole_report_part(bool saved, const char *why);

#endif
