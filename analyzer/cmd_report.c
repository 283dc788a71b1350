/*
 * analyzer/cmd_report.c — `rperf-analyze report [--top N] [--lines] PATH...`.
 *
 * Owns: the report subcommand's command line (the shared options,
 * --format text|table|table-json for the text report or the gem's flat
 * tables (table.c), --by
 * KEY for the time per value of a label, --timeline for the parts in time
 * order, --callers / --callees METHOD for one method's call paths
 * merged); the layouts are report.c's, timeline.c's and sandwich.c's.
 */
#include <getopt.h>

#include <stdbool.h>
#include <string.h>

#include "commands.h"
#include "../profile/encode/format.h"
#include "../profile/load.h"
#include "options.h"
#include "../profile/output.h"
#include "pipeline.h"
#include "../profile/encode/report.h"
#include "../profile/encode/sandwich.h"
#include "../profile/encode/timeline.h"

enum { OPT_BY = 0x2000, OPT_TIMELINE, OPT_CALLERS, OPT_CALLEES, OPT_FORMAT };

/* --format NAME: the report as text, or a table (format.h's rows). */
static const rp_format *report_format(const char *name)
{
    static const char *const names[] = {"text", "table", "table-json"};
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0)
            return rp_format_named(name);
    return NULL;
}

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
    int rc = rp_pipeline_load(paths, count, o, false, false, &profile);
    struct by_key b = {&profile, key};
    if (rc == 0)
        rc = rp_output_to(NULL, "report", false, false, write_by, &b);
    rp_profile_free(&profile);
    return rc == 0 ? RP_EXIT_OK : RP_EXIT_FAILURE;
}

struct sandwich {
    const rp_profile *p;
    const char *method;
    bool callers, callees;
    int verdict; /* 1: no such method */
};

static int write_sandwich(rp_out *out, const void *ctx)
{
    struct sandwich *s = (struct sandwich *)ctx;
    int rc = rp_sandwich_write(s->p, out, s->method, s->callers, s->callees);
    s->verdict = rc;
    return rc < 0 ? -1 : 0;
}

/* report --callers / --callees METHOD: its call paths, merged. */
static int report_sandwich(char *const *paths, int count, const rp_options *o, const char *callers,
                           const char *callees)
{
    if (callers && callees && strcmp(callers, callees) != 0)
        return rp_usage_error("report: --callers and --callees name one method, got '%s' and '%s'", callers, callees);
    rp_profile profile;
    int rc = rp_pipeline_load(paths, count, o, false, false, &profile);
    struct sandwich s = {&profile, callers ? callers : callees, callers != NULL, callees != NULL, 0};
    if (rc == 0)
        rc = rp_output_to(NULL, "report", false, false, write_sandwich, &s);
    rp_profile_free(&profile);
    return rc == 0 && s.verdict == 0 ? RP_EXIT_OK : RP_EXIT_FAILURE;
}

static int add_row(const rp_profile *merged, const rp_merge_pending *file, void *ctx)
{
    return rp_timeline_add(ctx, merged, file);
}

static int write_timeline(rp_out *out, const void *ctx)
{
    return rp_timeline_write((rp_timeline *)ctx, out);
}

/* report --timeline: one row per part read. */
static int report_timeline(char *const *paths, int count, const rp_options *o)
{
    if (o->tags.count > 0)
        return rp_usage_error("report: --timeline shows the parts as recorded; it takes no "
                              "--tagfocus/--tagignore");
    rp_profile merged;
    rp_timeline t = {0};
    rp_load_spec spec = {.window = &o->window, .keep_lines = o->lines, .each = add_row, .each_ctx = &t};
    int rc = rp_load_paths(paths, count, &spec, &merged);
    if (rc == 0)
        rc = rp_output_to(NULL, "report", false, false, write_timeline, &t);
    rp_timeline_free(&t);
    rp_profile_free(&merged);
    return rc == 0 ? RP_EXIT_OK : RP_EXIT_FAILURE;
}

static int run_report(int argc, char **argv, rp_options *o)
{
    static const struct option options[] = {
        RP_SHARED_OPTIONS,
        {"by", required_argument, NULL, OPT_BY},
        {"timeline", no_argument, NULL, OPT_TIMELINE},
        {"callers", required_argument, NULL, OPT_CALLERS},
        {"callees", required_argument, NULL, OPT_CALLEES},
        {"format", required_argument, NULL, OPT_FORMAT},
        {NULL, 0, NULL, 0},
    };
    const char *by = NULL, *callers = NULL, *callees = NULL;
    const rp_format *format = rp_format_named("text");
    bool timeline = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        int shared = rp_options_parse(o, c, optarg);
        if (shared < 0)
            return RP_EXIT_USAGE;
        if (c == OPT_BY)
            by = optarg;
        else if (c == OPT_TIMELINE)
            timeline = true;
        else if (c == OPT_CALLERS)
            callers = optarg;
        else if (c == OPT_CALLEES)
            callees = optarg;
        else if (c == OPT_FORMAT && !(format = report_format(optarg)))
            return rp_usage_error("report: --format is text, table or table-json, got '%s'", optarg);
        else if (c == OPT_FORMAT)
            continue;
        else if (shared == 0)
            return rp_usage_error("report: unknown option '%s'", argv[optind - 1]);
    }
    if (optind >= argc)
        return rp_usage_error("report: missing PATH (a session directory or profile file)");
    if ((by != NULL) + timeline + (callers || callees) + (strcmp(format->name, "text") != 0) > 1)
        return rp_usage_error("report: --by, --timeline, --callers/--callees and --format table are different "
                              "reports; one at a time");
    if (callers || callees)
        return report_sandwich(argv + optind, argc - optind, o, callers, callees);
    if (by)
        return report_by(argv + optind, argc - optind, o, by);
    if (timeline)
        return report_timeline(argv + optind, argc - optind, o);
    return rp_pipeline_convert(argv + optind, argc - optind, o, format, NULL);
}

int cmd_report(int argc, char **argv)
{
    rp_options o;
    rp_options_init(&o);
    int status = run_report(argc, argv, &o);
    rp_options_free(&o);
    return status;
}
