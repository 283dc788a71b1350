/*
 * analyzer/cmd_growth.c — `rperf-analyze growth [--top N] [--json] PATH...`.
 *
 * Owns: the growth subcommand's command line: the parts of a session
 * recorded with RPERF_INTERVAL and RPERF_ALLOC, read with the shared
 * options (--since/--until, --lines, --top), and the allocation sites
 * whose retained objects grow part after part (growth.c's table, or JSON).
 * Label filters do not apply: a site's objects are counted whole.
 */
#include <getopt.h>

#include <stdbool.h>

#include "../profile/diag.h"
#include "../profile/encode/growth.h"
#include "../profile/load.h"
#include "../profile/output.h"
#include "commands.h"
#include "options.h"

enum { OPT_JSON = 0x2000 };

struct growth_output {
    rp_growth *g;
    const rp_profile *merged;
    int top;
    bool json;
};

static int add_file(const rp_profile *merged, const rp_merge_pending *file, void *ctx)
{
    return rp_growth_add(ctx, merged, file);
}

static int write_growth(rp_out *out, const void *ctx)
{
    const struct growth_output *o = ctx;
    return rp_growth_write(o->g, o->merged, out, o->top, o->json);
}

/* Why the files read cannot show growth, or NULL when they can. */
static const char *unusable(const rp_growth *g)
{
    if (g->alloc_rate == 0)
        return "has no allocation samples (record with RPERF_ALLOC=N and RPERF_INTERVAL=SECONDS)";
    if (g->part_count < 2)
        return "has fewer than two parts with allocation samples (record with RPERF_INTERVAL=SECONDS)";
    return NULL;
}

static int growth(char *const *paths, int count, const rp_options *o, bool json)
{
    rp_profile merged;
    rp_growth g = {0};
    rp_load_spec spec = {.window = &o->window, .keep_lines = o->lines, .each = add_file, .each_ctx = &g};
    int rc = rp_load_paths(paths, count, &spec, &merged);
    const char *why = rc == 0 ? unusable(&g) : NULL;
    if (why) {
        rp_error("growth: %s%s %s", paths[0], count > 1 ? " and the rest" : "", why);
        rc = -1;
    }
    struct growth_output out = {&g, &merged, o->encode.top, json};
    if (rc == 0)
        rc = rp_output_to(NULL, "growth", false, false, write_growth, &out);
    rp_growth_free(&g);
    rp_profile_free(&merged);
    return rc == 0 ? RP_EXIT_OK : RP_EXIT_FAILURE;
}

static int run_growth(int argc, char **argv, rp_options *o)
{
    static const struct option options[] = {
        RP_SHARED_OPTIONS,
        {"json", no_argument, NULL, OPT_JSON},
        {NULL, 0, NULL, 0},
    };
    bool json = false;
    int c;
    optind = 1;
    opterr = 0;
    o->encode.top = 20;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        int shared = rp_options_parse(o, c, optarg);
        if (shared < 0)
            return RP_EXIT_USAGE;
        if (c == OPT_JSON)
            json = true;
        else if (shared == 0)
            return rp_usage_error("growth: unknown option '%s'", argv[optind - 1]);
    }
    if (optind >= argc)
        return rp_usage_error("growth: missing PATH (a session directory recorded with RPERF_INTERVAL)");
    if (o->tags.count > 0 || o->measure != RP_MEASURE_TIME)
        return rp_usage_error("growth: counts the retained objects of every site; it takes no "
                              "--tagfocus/--tagignore/--measure");
    return growth(argv + optind, argc - optind, o, json);
}

int cmd_growth(int argc, char **argv)
{
    rp_options o;
    rp_options_init(&o);
    int status = run_growth(argc, argv, &o);
    rp_options_free(&o);
    return status;
}
