/*
 * analyzer/cmd_stat.c — `rperf-analyze stat [--report] PATH...`.
 *
 * Owns: the stat subcommand's options; the layout is stat.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../common/out.h"
#include "commands.h"
#include "diag.h"
#include "load.h"
#include "stat.h"

int cmd_stat(int argc, char **argv)
{
    static const struct option options[] = {
        {"report", no_argument, NULL, 'r'},
        {NULL, 0, NULL, 0},
    };
    bool with_report = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+r", options, NULL)) != -1) {
        if (c == 'r')
            with_report = true;
        else
            return rp_usage_error("stat: unknown option '%s'", argv[optind - 1]);
    }
    if (optind >= argc)
        return rp_usage_error("stat: missing PATH (a session directory or profile file)");

    rp_profile profile;
    int rc = rp_load_paths(argv + optind, argc - optind, false, &profile);
    if (rc == 0) {
        rp_out *out = rp_out_stream(stdout, false);
        if (!out || rp_stat_write(&profile, out, with_report) != 0) {
            rp_error("out of memory");
            rc = -1;
        }
        int err = out ? rp_out_close(out) : 0;
        if (err) {
            rp_error("writing the summary: %s", strerror(err));
            rc = -1;
        }
    }
    rp_profile_free(&profile);
    return rc == 0 ? RP_EXIT_OK : RP_EXIT_FAILURE;
}
