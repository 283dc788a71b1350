/*
 * analyzer/cmd_report.c — `rperf-analyze report [--top N] [--lines] PATH...`.
 *
 * Owns: the report subcommand's command line (the shared options, and
 * --by KEY for the time per value of a label); the layouts are report.c's.
 */
#include <getopt.h>

#include "commands.h"
#include "format.h"
#include "options.h"
#include "output.h"
#include "pipeline.h"
#include "report.h"

enum { OPT_BY = 0x2000 };

struct by_key {
    const rp_profile *p;
    const char *key;
};

static int write_by(rp_out *out, const void *ctx)
{
    const struct by_key *b = ctx;
    return rp_report_by_write(b->p, out, b->key);
}

/* report --by KEY: the time per value of one label key. */
static int report_by(char *const *paths, int count, const rp_options *o, const char *key)
{
    rp_profile profile;
    int rc = rp_pipeline_load(paths, count, o, false, &profile);
    struct by_key b = {&profile, key};
    if (rc == 0)
        rc = rp_output_to(NULL, "report", false, false, write_by, &b);
    rp_profile_free(&profile);
    return rc == 0 ? RP_EXIT_OK : RP_EXIT_FAILURE;
}

static int run_report(int argc, char **argv, rp_options *o)
{
    static const struct option options[] = {
        RP_SHARED_OPTIONS,
        {"by", required_argument, NULL, OPT_BY},
        {NULL, 0, NULL, 0},
    };
    const char *by = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+", options, NULL)) != -1) {
        int shared = rp_options_parse(o, c, optarg);
        if (shared < 0)
            return RP_EXIT_USAGE;
        if (c == OPT_BY)
            by = optarg;
        else if (shared == 0)
            return rp_usage_error("report: unknown option '%s'", argv[optind - 1]);
    }
    if (optind >= argc)
        return rp_usage_error("report: missing PATH (a session directory or profile file)");
    if (by)
        return report_by(argv + optind, argc - optind, o, by);
    return rp_pipeline_convert(argv + optind, argc - optind, o, rp_format_named("text"), NULL);
}

int cmd_report(int argc, char **argv)
{
    rp_options o;
    rp_options_init(&o);
    int status = run_report(argc, argv, &o);
    rp_options_free(&o);
    return status;
}
