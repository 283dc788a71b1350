/*
 * rperf/cmd_detach.c — `rperf detach PID`: stops what `rperf attach` or
 * `rperf ctl start` began in the process; an attach writes its own
 * profile, a ctl start's is written here (rperf.json.gz).
 */
#include <libgen.h>
#include <stdio.h>
#include <string.h>

#include "remote.h"
#include "subcommands.h"
#include "tools.h"
#include "usage.h"

int rperf_cmd_detach(int argc, char **argv)
{
    if (argc != 2)
        return rperf_usage_error(rperf_usage, "Usage: rperf detach pid");
    pid_t pid = rperf_check_pid(argv[1], rperf_usage);
    rperf_tools t;
    char answer[PATH_MAX + 64];
    rperf_recording rec = RPERF_RECORDING_DEFAULTS;
    if (pid < 0 || rperf_locate(&t) != 0 || rperf_ask(&t, &rec, pid, 30, "stop", answer, sizeof(answer)) != 0)
        return 1;
    /* An attach's session (its marker, or already gone: the attach saw the
     * profile appear, wrote its output and removed its directory in one
     * rename) is the attach's to write; a ctl start's is written here. */
    char *session = dirname(answer), marker[PATH_MAX + 16];
    snprintf(marker, sizeof(marker), "%s/.attach", session);
    if (rperf_exists(marker) || !rperf_exists(session)) {
        fprintf(stderr, "rperf: process %ld stopped; its rperf attach writes the profile\n", (long)pid);
        return 0;
    }
    return rperf_write_output(&rec, session);
}
