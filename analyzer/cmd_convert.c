/*
 * analyzer/cmd_convert.c — `rperf-analyze convert FORMAT [-o OUT] PATH...`.
 *
 * Owns: the convert subcommand's options. FORMAT is --NAME or --format
 * NAME for any format of format.c; without one it follows the extension
 * of -o. --no-source keeps the program's source files out of the HTML
 * page (html_sources.h).
 */
#include <getopt.h>
#include <stdio.h>

#include "commands.h"
#include "../profile/encode/format.h"
#include "options.h"
#include "pipeline.h"

/* getopt_long values of --NAME for each format: FORMAT_OPTION + index. */
enum { FORMAT_OPTION = 0x2000 };

enum { NO_SOURCE_OPTION = 0x1800 };

static const struct option fixed_options[] = {
    {"format", required_argument, NULL, 'F'},
    {"output", required_argument, NULL, 'o'},
    {"no-source", no_argument, NULL, NO_SOURCE_OPTION},
    RP_SHARED_OPTIONS,
    {NULL, 0, NULL, 0},
};
#define FIXED_COUNT (sizeof(fixed_options) / sizeof(fixed_options[0]))

/* --NAME for every format, then --format, -o and the shared options. */
static void fill_options(struct option *options)
{
    size_t n = 0;
    for (size_t i = 0; i < rp_format_count; i++)
        options[n++] = (struct option){rp_formats[i].name, no_argument, NULL, FORMAT_OPTION + (int)i};
    for (size_t i = 0; i < FIXED_COUNT; i++)
        options[n++] = fixed_options[i];
}

static int run_convert(int argc, char **argv, rp_options *opts)
{
    struct option options[rp_format_count + FIXED_COUNT];
    fill_options(options);
    const rp_format *format = NULL;
    const char *output = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:F:", options, NULL)) != -1) {
        int shared = rp_options_parse(opts, c, optarg);
        if (shared < 0)
            return RP_EXIT_USAGE;
        if (shared > 0)
            continue;
        if (c >= FORMAT_OPTION && c < FORMAT_OPTION + (int)rp_format_count) {
            format = &rp_formats[c - FORMAT_OPTION];
        } else if (c == 'F') {
            if (!(format = rp_format_named(optarg)))
                return rp_usage_error("convert: unknown format '%s' (see rperf-analyze --help)",
                                      optarg);
        } else if (c == 'o') {
            output = optarg;
        } else if (c == NO_SOURCE_OPTION) {
            opts->encode.no_source = true;
        } else {
            return rp_usage_error("convert: unknown option '%s'", argv[optind - 1]);
        }
    }
    if (!format && !output)
        return rp_usage_error("convert: say which format (--pprof, --format NAME ...), "
                              "or -o FILE with a known extension");
    if (!format)
        format = rp_format_for_path(output);
    if (optind >= argc)
        return rp_usage_error("convert: missing PATH (a session directory or profile file)");

    return rp_pipeline_convert(argv + optind, argc - optind, opts, format, output);
}

int cmd_convert(int argc, char **argv)
{
    rp_options o;
    rp_options_init(&o);
    int status = run_convert(argc, argv, &o);
    rp_options_free(&o);
    return status;
}
