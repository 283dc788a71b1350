/*
 * rperf/remote.h — commands to the agent inside a running process, for
 * `rperf attach`, `detach` and `ctl`.
 *
 * Owns: each command going through rperf-attach (attach/main.c), which
 * borrows the process's timer thread to hand it to the agent
 * (agent/control/remote.h) and waits for the agent's one-line answer in a
 * reply file; rperf-attach runs in a process group of its own, so a
 * Ctrl-C at the terminal reaches rperf alone, which decides what it means
 * (cmd_attach.c) — never a tracer cut off in the middle of a call. Also:
 * the private directory the process writes into, the recording options
 * and their checks, the profile written from a session, the agent's log.
 */
#ifndef RPERF_RPERF_REMOTE_H
#define RPERF_RPERF_REMOTE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "tools.h"
#include "usage.h"

/* The options of a recording begun from outside, and of its output. */
typedef struct rperf_recording {
    const char *mode, *frequency, *alloc; /* alloc NULL: none */
    const char *output, *format;          /* format NULL: from the output's name */
    bool verbose;                         /* rperf-attach -v */
} rperf_recording;

#define RPERF_RECORDING_DEFAULTS {.mode = "cpu", .frequency = "1000", .output = "rperf.json.gz"}

/* The values checked; returns 0, or 1 after the usage error. */
int rperf_check_recording(const rperf_recording *r, rperf_usage_fn *usage);

/* The process id argument: a number, a process. Returns its pid, or -1
 * after the error (usage, or "rperf: no process PID"). */
pid_t rperf_check_pid(const char *arg, rperf_usage_fn *usage);

/* A private directory the process itself can write into (its user's,
 * when root acts on another user's process), into dir[]. */
int rperf_process_dir(pid_t pid, char dir[PATH_MAX]);

/* Hands `verb` and its `lines` (NULL-terminated, "key=value") to the agent
 * in `pid`, waiting at most `wait_s` for its answer, which goes into
 * answer[] (may be NULL). Returns 0, or 1 when it refused or could not be
 * reached (rperf-attach said why). */
int rperf_remote(const rperf_tools *t, const rperf_recording *r, pid_t pid, int wait_s, const char *verb,
                 const char *reply_dir, const char *const *lines, char *answer, size_t size);

/* rperf_remote with no line, through a reply directory of its own, made
 * and removed. */
int rperf_ask(const rperf_tools *t, const rperf_recording *r, pid_t pid, int wait_s, const char *verb, char *answer,
              size_t size);

/* The recording's start lines — dir=, mode=, frequency= and alloc= —
 * written into `text` and pointed to from lines[] (room for
 * RPERF_START_LINES_MAX). Returns how many. */
#define RPERF_START_LINES_MAX 4
typedef struct rperf_start_text {
    char line[RPERF_START_LINES_MAX][PATH_MAX + 16];
} rperf_start_text;
int rperf_start_lines(const rperf_recording *r, const char *dir, rperf_start_text *text, const char *lines[]);

/* The session's profiles, merged, into r->output. Returns 0 or 1. */
int rperf_write_output(const rperf_recording *r, const char *session);

/* The agent's log in the session (agent.log), onto stderr. */
void rperf_show_agent_log(const char *session);

/* Stops the recording in `pid` and in its children that follow it (forked
 * after the start); their profiles land in `session`. */
void rperf_stop_all(const rperf_tools *t, const rperf_recording *r, pid_t pid, const char *session);

/* Whether `path` exists. */
bool rperf_exists(const char *path);

#endif
