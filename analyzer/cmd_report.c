/*
 * analyzer/cmd_report.c — `rperf-analyze report [--top N] [--lines] PATH...`.
 *
 * Owns: the report subcommand's options; the layout is report.c's.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "commands.h"
#include "output.h"
#include "report.h"

int cmd_report(int argc, char **argv)
{
    static const struct option options[] = {
        {"top", required_argument, NULL, 't'},
        {"lines", no_argument, NULL, 'l'},
        {NULL, 0, NULL, 0},
    };
    int top = RP_REPORT_TOP_DEFAULT, c;
    bool lines = false;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+t:", options, NULL)) != -1) {
        if (c == 't') {
            if (rp_parse_count_option("--top", optarg, &top) != 0)
                return RP_EXIT_USAGE;
        } else if (c == 'l') {
            lines = true;
        } else {
            return rp_usage_error("report: unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return rp_usage_error("report: missing PATH (a session directory or profile file)");

    return rp_output_convert(argv + optind, argc - optind, RP_FORMAT_TEXT, NULL, top, lines);
}
