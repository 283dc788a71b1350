/*
 * agent/base/child_env.h — the environment handed to child programs.
 *
 * Owns: what a program started by the profiled process (exec, spawn)
 * learns from the agent — the root's pid and the session directory, in one
 * private variable added to the child's environment at exec time — and,
 * with RPERF_INHERIT=0, LD_PRELOAD without the agent. The agent takes the
 * variable out of every process's environment as it loads (before main),
 * so no program sees it; a process that is not Ruby (a shell between two
 * Ruby programs) hands it on to its own children unchanged.
 */
#ifndef RPERF_AGENT_CHILD_ENV_H
#define RPERF_AGENT_CHILD_ENV_H

#include <stdbool.h>
#include <stddef.h>

#define RP_SESSION_DIR_VAR "RPERF_SESSION_DIR"
/* "<root pid>:<absolute session directory>" */
#define RP_SESSION_VAR "_RPERF_SESSION"

/* Main thread at start: what children should get. `agent_name` is this
 * library's file name (as it appears in LD_PRELOAD). */
void rp_child_env_init(const char *session_dir, long root_pid, bool inherit,
                       const char *agent_name);

/* Library constructor, in every process: takes the session variable out
 * of the environment and keeps it. */
void rp_child_env_adopt(void);

/* Main thread at start: the session handed down by a profiled parent.
 * Returns false when there is none (this process is a session's root). */
bool rp_child_env_take_session(long *root_pid, char *dir, size_t dir_size);

/* Entries (plus the terminating NULL) a child environment may need. */
size_t rp_child_env_capacity(char *const envp[]);

/* Any context, including a vfork child (no allocation, no lock): builds in
 * `out` (rp_child_env_capacity entries) and `scratch` (scratch_size bytes,
 * for a rewritten LD_PRELOAD) the environment for a child from `envp`, and
 * returns it. Returns envp itself when the agent has nothing to add. */
char *const *rp_child_env(char *const envp[], char **out, char *scratch, size_t scratch_size);

/* Bytes of scratch rp_child_env may use for `envp`. */
size_t rp_child_env_scratch_size(char *const envp[]);

/* LD_PRELOAD value without entries whose file name is `agent_name`
 * (entries separated by spaces or colons). Writes at most `size` bytes. */
void rp_child_env_strip_preload(const char *preload, const char *agent_name, char *out, size_t size);

#endif
