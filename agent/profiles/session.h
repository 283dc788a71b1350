/*
 * agent/profiles/session.h — the session directory that profiles are written to.
 *
 * Owns: choosing the directory (RPERF_SESSION_DIR, or ./rperf-<pid>/
 * created by the root process and handed to its children, see
 * child_env.h), checking it
 * is safe (a real directory, owned by us, not group/world-writable), and
 * naming each process's profile file so that no name is ever reused.
 */
#ifndef RPERF_AGENT_SESSION_H
#define RPERF_AGENT_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RP_PATH_MAX 4096

typedef struct rp_session {
    char dir[RP_PATH_MAX];     /* absolute path */
    char display[RP_PATH_MAX]; /* as the user would type it */
    bool is_root;              /* first profiled process of the session */
    long root_pid;
} rp_session;

/* Main thread at start: finds or creates the directory. Returns 0, or -1
 * after one line on stderr naming the problem. */
int rp_session_open(rp_session *s);

/* GVL held: the session is directory `dir`, which rperf attach or rperf
 * ctl created for this process (remote.h); this process is its root.
 * Returns NULL, or why the directory cannot be used. */
const char *rp_session_use(rp_session *s, const char *dir);

/* NULL while the directory is still safe to write to, else why not. */
const char *rp_session_unsafe(const rp_session *s);

/* profile-<pid>-<start_ns>.json.gz inside the directory. */
int rp_session_profile_path(const rp_session *s, pid_t pid, int64_t start_ns, char *buf,
                            size_t size);

/* Number of complete profile files in the directory now. */
int rp_session_count_profiles(const rp_session *s);

#endif
