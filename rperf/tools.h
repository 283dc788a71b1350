/*
 * rperf/tools.h — what the subcommands of `rperf` share.
 *
 * Owns: finding the agent and rperf-attach (beside this program, in the
 * build tree or installed, or where RPERF_AGENT / RPERF_ATTACH say);
 * running an rperf-analyze subcommand in this process (the same code as
 * rperf-analyze: analyzer/commands.h), its output on stdout or stderr;
 * running a program and waiting for it; private temporary directories and
 * their removal; the checks on files named on the command line.
 *
 * Context: an ordinary process; nothing here is async-signal-safe except
 * where said.
 */
#ifndef RPERF_RPERF_TOOLS_H
#define RPERF_RPERF_TOOLS_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

/* --alloc without N: the agent's default rate (RP_ALLOC_RATE_DEFAULT,
 * agent/base/config.h). */
#define RPERF_ALLOC_DEFAULT "128"

typedef struct rperf_tools {
    char agent[PATH_MAX];
    char attach[PATH_MAX]; /* "" when not found */
} rperf_tools;

/* Finds the agent (required: a one-line error and -1 without it) and
 * rperf-attach (optional). */
int rperf_locate(rperf_tools *t);

/* Makes t->agent a path LD_PRELOAD can hold: the dynamic loader splits
 * LD_PRELOAD at spaces and colons, so an agent under such a path (a
 * GEM_HOME with a space) is linked from a private temporary directory,
 * named in link_dir[] (""; when none was needed), which the caller
 * removes after the program ran. Returns 0, or -1 (said). */
int rperf_preloadable(rperf_tools *t, char link_dir[PATH_MAX]);

/* Runs `rperf-analyze ARGS...` (args: NULL-terminated) in this process;
 * with `to_stderr` its stdout goes to stderr meanwhile. Returns its exit
 * status. */
int rperf_analyze(bool to_stderr, const char *const *args);

/* How rperf_run runs a program. RPERF_OWN_GROUP: in a process group of
 * its own, so that the terminal's Ctrl-C reaches only rperf, which decides
 * (rperf-attach in the middle of a command). RPERF_FORWARD_SIGNALS:
 * while it waits, rperf passes SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1
 * and SIGUSR2 sent to it by a process (kill, a supervisor, timeout(1)) to
 * the program, and lives on to write what was recorded; the terminal's
 * (Ctrl-C, a hang-up: sent by the kernel to the whole foreground group)
 * already reached the program and is not sent twice. The program starts
 * with every signal unblocked and at its default action (but those
 * ignored when rperf was started). */
enum { RPERF_OWN_GROUP = 1, RPERF_FORWARD_SIGNALS = 2 };

/* Runs argv[0] (looked up in PATH) with `envp` (NULL: rperf's) and waits
 * for it. Returns its status as a shell gives it: 128+N when signal N
 * ended it, 127 (126) when it could not be found (run), said on stderr. */
int rperf_run(char *const argv[], char *const envp[], int flags);

/* As rperf_run, its stdout captured into out[] (one line, newline cut). */
int rperf_run_capture(char *const argv[], int flags, char *out, size_t size);

/* A new private directory under $TMPDIR (or /tmp) named PREFIX.XXXXXX,
 * into dir[]; -1 (said) when it cannot be made. */
int rperf_temp_dir(const char *prefix, char dir[PATH_MAX]);

/* Removes `path` and everything in it. */
void rperf_remove_tree(const char *path);

/* Each of `paths` exists, else "File not found: PATH" and false. */
bool rperf_files_exist(char *const *paths, int count);

/* Whether every character of `s` is a digit (and there is one). */
bool rperf_all_digits(const char *s);

#endif
