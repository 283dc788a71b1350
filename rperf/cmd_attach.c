/*
 * rperf/cmd_attach.c — `rperf attach [options] PID`: a recording of a
 * running Ruby process for a while (until --duration, Ctrl-C, `rperf
 * detach PID` or the process's exit), its profile written, the process
 * left as it was with the agent dormant in it.
 *
 * Signals are handled deliberately. rperf-attach runs in a process group
 * of its own (remote.h), so the terminal's Ctrl-C reaches rperf alone.
 * SIGINT, SIGTERM and SIGHUP are held while a command is in the agent's
 * hands — the start, the stops, the writing — and while the recording runs
 * they only ask it to end: whenever one comes, the recording is stopped
 * and written, and the process is never left traced, stopped or half
 * started. Should rperf itself be killed, the agent's safety net ends the
 * recording (watch=, limit_s=: remote_profile.c).
 */
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "options.h"
#include "remote.h"
#include "subcommands.h"
#include "tools.h"
#include "usage.h"

static volatile sig_atomic_t stop_asked;

/* Signal handler: the recording is to end (the main loop sees it). */
static void ask_to_stop(int signo)
{
    (void)signo;
    stop_asked = 1;
}

/* INT, TERM and HUP: from now on they ask the recording to end. */
static void take_signals(void)
{
    struct sigaction sa = {.sa_handler = ask_to_stop}; /* no SA_RESTART: the wait wakes */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* Those three held (while a command is in the agent's hands: they act
 * once it is done) or let through. */
static void hold_signals(bool hold)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigprocmask(hold ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

static double monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A duration: digits, optionally a fraction, not zero. */
static bool valid_duration(const char *d)
{
    size_t whole = strspn(d, "0123456789");
    if (whole == 0)
        return false;
    if (d[whole] == '.' && (strspn(d + whole + 1, "0123456789") == 0 ||
                            d[whole + 1 + strspn(d + whole + 1, "0123456789")] != '\0'))
        return false;
    if (d[whole] != '\0' && d[whole] != '.')
        return false;
    return strcmp(d, "0") != 0;
}

/* `rperf detach PID` stopped it: the agent wrote the process's profile. */
static bool detached(const char *session, pid_t pid)
{
    char pattern[PATH_MAX + 64];
    snprintf(pattern, sizeof(pattern), "%s/profile-%ld-*.json.gz", session, (long)pid);
    glob_t g;
    bool found = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;
    globfree(&g);
    return found;
}

struct attach_options {
    rperf_recording rec;
    const char *duration, *pid;
};

static int parse(int argc, char **argv, struct attach_options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *alloc;
        int got;
        if ((got = rperf_opt_value(argc, argv, &i, "-d", "--duration", &o->duration, rperf_attach_usage)) ||
            (got = rperf_opt_value(argc, argv, &i, "-m", "--mode", &o->rec.mode, rperf_attach_usage)) ||
            (got = rperf_opt_value(argc, argv, &i, "-f", "--frequency", &o->rec.frequency, rperf_attach_usage)) ||
            (got = rperf_opt_value(argc, argv, &i, "-o", "--output", &o->rec.output, rperf_attach_usage)) ||
            (got = rperf_opt_value(argc, argv, &i, NULL, "--format", &o->rec.format, rperf_attach_usage))) {
            if (got < 0)
                return 1;
        } else if (rperf_opt_alloc(a, &alloc)) {
            o->rec.alloc = alloc;
        } else if (rperf_opt_flag(a, "-v", "--verbose")) {
            o->rec.verbose = true;
        } else if (rperf_opt_flag(a, "-h", "--help")) {
            rperf_attach_usage(stdout);
            exit(0);
        } else if (a[0] == '-') {
            return rperf_usage_error(rperf_attach_usage, "invalid option: %s", a);
        } else if (o->pid) {
            return rperf_usage_error(rperf_attach_usage, "one process id only: %s", a);
        } else {
            o->pid = a;
        }
    }
    return 0;
}

/* Until the recording is to end: a signal, the process gone, detached,
 * the duration over. */
static void wait_for_end(pid_t pid, const char *session, const char *duration)
{
    double deadline = duration ? monotonic_s() + atof(duration) : 0;
    char proc[32];
    snprintf(proc, sizeof(proc), "/proc/%ld", (long)pid);
    while (!stop_asked && rperf_exists(proc) && !detached(session, pid) && (!duration || monotonic_s() < deadline)) {
        struct timespec pause = {0, 20000000};
        nanosleep(&pause, NULL);
    }
}

int rperf_cmd_attach(int argc, char **argv)
{
    struct attach_options o = {.rec = RPERF_RECORDING_DEFAULTS};
    int rc = parse(argc, argv, &o);
    if (rc || (rc = rperf_check_recording(&o.rec, rperf_attach_usage)))
        return rc;
    if (o.duration && !valid_duration(o.duration))
        return rperf_usage_error(rperf_attach_usage, "invalid argument: --duration %s (seconds, e.g. 2 or 0.5)",
                                 o.duration);
    pid_t pid = rperf_check_pid(o.pid, rperf_attach_usage);
    rperf_tools t;
    char session[PATH_MAX];
    if (pid < 0 || rperf_locate(&t) != 0)
        return 1;
    take_signals();
    hold_signals(true);
    if (rperf_process_dir(pid, session) != 0)
        return 1;
    char marker[PATH_MAX + 16], watch[32], limit[32];
    snprintf(marker, sizeof(marker), "%s/.attach", session);
    FILE *m = fopen(marker, "w");
    if (m)
        fclose(m);
    const char *lines[RPERF_START_LINES_MAX + 3];
    rperf_start_text text;
    int n = rperf_start_lines(&o.rec, session, &text, lines);
    snprintf(watch, sizeof(watch), "watch=%ld", (long)getpid());
    lines[n++] = watch;
    if (o.duration) {
        snprintf(limit, sizeof(limit), "limit_s=%d", (int)(atof(o.duration) + 30));
        lines[n++] = limit;
    }
    lines[n] = NULL;
    if (rperf_remote(&t, &o.rec, pid, 10, "start", session, lines, NULL, 0) != 0) {
        rperf_show_agent_log(session);
        rperf_remove_tree(session);
        return 1;
    }
    fprintf(stderr, "rperf: recording process %ld (%s, %s Hz)%s%s%s; Ctrl-C or 'rperf detach %ld' stops\n",
            (long)pid, o.rec.mode, o.rec.frequency, o.duration ? " for " : "", o.duration ? o.duration : "",
            o.duration ? " s" : "", (long)pid);
    hold_signals(false); /* a Ctrl-C during the start arrives now: the recording ends at once */
    wait_for_end(pid, session, o.duration);
    hold_signals(true);
    if (!detached(session, pid))
        rperf_stop_all(&t, &o.rec, pid, session);
    rperf_show_agent_log(session);
    int status = rperf_write_output(&o.rec, session);
    /* gone at once (a rename), so that a `rperf detach` still looking
     * finds the whole directory, marker and all, or none of it */
    char gone[PATH_MAX + 16];
    snprintf(gone, sizeof(gone), "%s.done", session);
    rperf_remove_tree(rename(session, gone) == 0 ? gone : session);
    return status;
}
