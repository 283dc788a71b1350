/*
 * rperf/cmd_ctl.c — `rperf ctl PID start|stop|snapshot|status`: the agent
 * inside a process (preloaded dormant, RPERF_ENABLED=0, or loaded by
 * rperf attach) begins a whole-process recording, ends it and has its
 * profile written (rperf.json.gz), writes the profile so far while it
 * goes on, or says what it is doing. No signal of the program's is used.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "remote.h"
#include "subcommands.h"
#include "tools.h"
#include "usage.h"

static int parse(int argc, char **argv, rperf_recording *r)
{
    for (int i = 3; i < argc; i++) {
        const char *a = argv[i], *alloc;
        int got;
        if ((got = rperf_opt_value(argc, argv, &i, "-m", "--mode", &r->mode, rperf_ctl_usage)) ||
            (got = rperf_opt_value(argc, argv, &i, "-f", "--frequency", &r->frequency, rperf_ctl_usage)) ||
            (got = rperf_opt_value(argc, argv, &i, "-o", "--output", &r->output, rperf_ctl_usage)) ||
            (got = rperf_opt_value(argc, argv, &i, NULL, "--format", &r->format, rperf_ctl_usage))) {
            if (got < 0)
                return 1;
        } else if (rperf_opt_alloc(a, &alloc)) {
            r->alloc = alloc;
        } else if (rperf_opt_flag(a, "-v", "--verbose")) {
            r->verbose = true;
        } else if (rperf_opt_flag(a, "-h", "--help")) {
            rperf_ctl_usage(stdout);
            exit(0);
        } else {
            return rperf_usage_error(rperf_ctl_usage, "invalid argument: %s", a);
        }
    }
    return 0;
}

static int start(const rperf_tools *t, const rperf_recording *r, pid_t pid)
{
    char session[PATH_MAX];
    if (rperf_process_dir(pid, session) != 0)
        return 1;
    const char *lines[RPERF_START_LINES_MAX + 1];
    rperf_start_text text;
    lines[rperf_start_lines(r, session, &text, lines)] = NULL;
    if (rperf_remote(t, r, pid, 10, "start", session, lines, NULL, 0) != 0) {
        rperf_remove_tree(session);
        return 1;
    }
    fprintf(stderr, "rperf: recording process %ld into %s; 'rperf ctl %ld stop' writes the profile\n", (long)pid,
            session, (long)pid);
    return 0;
}

static int stop(const rperf_tools *t, const rperf_recording *r, pid_t pid)
{
    char answer[PATH_MAX + 64];
    if (rperf_ask(t, r, pid, 30, "stop", answer, sizeof(answer)) != 0)
        return 1;
    char *session = dirname(answer), marker[PATH_MAX + 16];
    rperf_show_agent_log(session);
    if (rperf_write_output(r, session) != 0)
        return 1;
    snprintf(marker, sizeof(marker), "%s/.attach", session);
    if (!rperf_exists(marker))
        rperf_remove_tree(session);
    return 0;
}

static int snapshot(const rperf_tools *t, const rperf_recording *r, pid_t pid)
{
    char session[PATH_MAX], dir[PATH_MAX + 8];
    if (rperf_process_dir(pid, session) != 0)
        return 1;
    snprintf(dir, sizeof(dir), "dir=%s", session);
    const char *lines[] = {dir, NULL};
    int rc = rperf_remote(t, r, pid, 30, "snapshot", session, lines, NULL, 0) != 0 ? 1 : rperf_write_output(r, session);
    rperf_remove_tree(session);
    return rc;
}

static int status(const rperf_tools *t, const rperf_recording *r, pid_t pid)
{
    char answer[512];
    if (rperf_ask(t, r, pid, 10, "status", answer, sizeof(answer)) != 0)
        return 1;
    printf("process %ld: %s\n", (long)pid, answer);
    return 0;
}

int rperf_cmd_ctl(int argc, char **argv)
{
    if (argc < 3)
        return rperf_usage_error(rperf_ctl_usage, "Usage: rperf ctl pid start|stop|snapshot|status");
    rperf_recording r = RPERF_RECORDING_DEFAULTS;
    int rc = parse(argc, argv, &r);
    if (rc || (rc = rperf_check_recording(&r, rperf_ctl_usage)))
        return rc;
    pid_t pid = rperf_check_pid(argv[1], rperf_ctl_usage);
    rperf_tools t;
    if (pid < 0 || rperf_locate(&t) != 0)
        return 1;
    static const struct {
        const char *verb;
        int (*run)(const rperf_tools *, const rperf_recording *, pid_t);
    } verbs[] = {{"start", start}, {"stop", stop}, {"snapshot", snapshot}, {"status", status}};
    for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
        if (strcmp(argv[2], verbs[i].verb) == 0)
            return verbs[i].run(&t, &r, pid);
    return rperf_usage_error(rperf_ctl_usage, "unknown ctl command: %s", argv[2]);
}
