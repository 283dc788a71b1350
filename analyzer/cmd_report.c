/*
 * analyzer/cmd_report.c — `rperf-analyze report [--top N] [--lines] PATH...`.
 *
 * Owns: the report subcommand's command line (only the shared options);
 * the layout is report.c's.
 */
#include <getopt.h>

#include "commands.h"
#include "format.h"
#include "options.h"
#include "pipeline.h"

int cmd_report(int argc, char **argv)
{
    static const struct option options[] = {
        RP_SHARED_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    rp_options o;
    rp_options_init(&o);
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+", options, NULL)) != -1) {
        int shared = rp_options_parse(&o, c, optarg);
        if (shared < 0)
            return RP_EXIT_USAGE;
        if (shared == 0)
            return rp_usage_error("report: unknown option '%s'", argv[optind - 1]);
    }
    if (optind >= argc)
        return rp_usage_error("report: missing PATH (a session directory or profile file)");

    return rp_pipeline_convert(argv + optind, argc - optind, &o, rp_format_named("text"), NULL);
}
