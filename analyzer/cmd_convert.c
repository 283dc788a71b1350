/*
 * analyzer/cmd_convert.c — `rperf-analyze convert FORMAT [-o OUT] PATH...`.
 *
 * Owns: the convert subcommand's options. The format is --pprof,
 * --collapsed, --text or --json (or --format NAME); without one it follows
 * the extension of -o. Encoders live in pprof.c, collapsed.c, report.c and
 * common/profile_write.c.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "commands.h"
#include "output.h"
#include "report.h"

int cmd_convert(int argc, char **argv)
{
    enum { OPT_PPROF = 256, OPT_COLLAPSED, OPT_TEXT, OPT_JSON };
    static const struct option options[] = {
        {"pprof", no_argument, NULL, OPT_PPROF},
        {"collapsed", no_argument, NULL, OPT_COLLAPSED},
        {"text", no_argument, NULL, OPT_TEXT},
        {"json", no_argument, NULL, OPT_JSON},
        {"format", required_argument, NULL, 'F'},
        {"output", required_argument, NULL, 'o'},
        {"top", required_argument, NULL, 't'},
        {"lines", no_argument, NULL, 'l'},
        {NULL, 0, NULL, 0},
    };
    bool lines = false;
    rp_format format = RP_FORMAT_NONE;
    const char *output = NULL;
    int top = RP_REPORT_TOP_DEFAULT, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+o:F:t:", options, NULL)) != -1) {
        switch (c) {
        case OPT_PPROF: format = RP_FORMAT_PPROF; break;
        case OPT_COLLAPSED: format = RP_FORMAT_COLLAPSED; break;
        case OPT_TEXT: format = RP_FORMAT_TEXT; break;
        case OPT_JSON: format = RP_FORMAT_JSON; break;
        case 'F':
            if ((format = rp_format_from_name(optarg)) == RP_FORMAT_NONE)
                return rp_usage_error("convert: unknown format '%s' (pprof, collapsed, text, json)", optarg);
            break;
        case 'o': output = optarg; break;
        case 'l': lines = true; break;
        case 't':
            if (rp_parse_count_option("--top", optarg, &top) != 0)
                return RP_EXIT_USAGE;
            break;
        default:
            return rp_usage_error("convert: unknown option '%s'", argv[optind - 1]);
        }
    }
    if (format == RP_FORMAT_NONE && !output)
        return rp_usage_error("convert: say which format: --pprof, --collapsed, --text, --json, "
                              "or -o FILE with a known extension");
    if (format == RP_FORMAT_NONE)
        format = rp_format_from_path(output);
    if (optind >= argc)
        return rp_usage_error("convert: missing PATH (a session directory or profile file)");

    return rp_output_convert(argv + optind, argc - optind, format, output, top, lines);
}
