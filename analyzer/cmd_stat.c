/*
 * analyzer/cmd_stat.c — `rperf-analyze stat [--report] PATH...`.
 *
 * Owns: the stat subcommand's command line; the layout is stat.c's.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../common/out.h"
#include "commands.h"
#include "../profile/diag.h"
#include "options.h"
#include "pipeline.h"
#include "../profile/encode/stat.h"

/* The summary of `p` on stdout. Returns 0, or -1 after an error line. */
static int print_summary(const rp_profile *p, bool with_report, const rp_options *o)
{
    rp_out *out = rp_out_stream(stdout, false);
    int rc = 0;
    if (!out || rp_stat_write(p, out, with_report, o->encode.top) != 0) {
        rp_error("out of memory");
        rc = -1;
    }
    int err = out ? rp_out_close(out) : 0;
    if (err) {
        rp_error("writing the summary: %s", strerror(err));
        rc = -1;
    }
    return rc;
}

static int run_stat(int argc, char **argv, rp_options *opts)
{
    static const struct option options[] = {
        {"report", no_argument, NULL, 'r'},
        RP_SHARED_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    bool with_report = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "r", options, NULL)) != -1) {
        int shared = rp_options_parse(opts, c, optarg);
        if (shared < 0)
            return RP_EXIT_USAGE;
        if (c == 'r')
            with_report = true;
        else if (shared == 0)
            return rp_usage_error("stat: unknown option '%s'", argv[optind - 1]);
    }
    if (optind >= argc)
        return rp_usage_error("stat: missing PATH (a session directory or profile file)");

    rp_profile profile;
    int rc = rp_pipeline_load(argv + optind, argc - optind, opts, false, false, &profile);
    if (rc == 0)
        rc = print_summary(&profile, with_report, opts);
    rp_profile_free(&profile);
    return rc == 0 ? RP_EXIT_OK : RP_EXIT_FAILURE;
}

int cmd_stat(int argc, char **argv)
{
    rp_options o;
    rp_options_init(&o);
    int status = run_stat(argc, argv, &o);
    rp_options_free(&o);
    return status;
}
