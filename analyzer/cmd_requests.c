/*
 * analyzer/cmd_requests.c — `rperf-analyze requests [--slowest N] [--json]
 * [--endpoint REGEX] PATH...`.
 *
 * Owns: the requests subcommand's command line: the requests and jobs
 * the Rack, Sidekiq and ActiveJob middlewares and Rperf.request recorded
 * (read with the shared options: --since/--until), as requests_table.c
 * lays them out.
 */
#include <getopt.h>
#include <regex.h>
#include <stdbool.h>

#include "../profile/diag.h"
#include "../profile/encode/requests_table.h"
#include "pipeline.h"
#include "../profile/output.h"
#include "commands.h"
#include "options.h"

enum { OPT_SLOWEST = 0x2000, OPT_JSON, OPT_ENDPOINT };

struct requests_output {
    const rp_profile *p;
    const rp_requests_opts *o;
};

static int write_requests(rp_out *out, const void *ctx)
{
    const struct requests_output *r = ctx;
    return rp_requests_write(r->p, out, r->o);
}

static int requests(char *const *paths, int count, const rp_options *o, const rp_requests_opts *ro)
{
    rp_profile p;
    int rc = rp_pipeline_load(paths, count, o, false, false, &p);
    if (rc == 0 && p.requests.count == 0) {
        rp_error("requests: %s%s has no requests or jobs (use Rperf::RackMiddleware, the Sidekiq or "
                 "ActiveJob middleware, or Rperf.request)", paths[0], count > 1 ? " and the rest" : "");
        rc = -1;
    }
    struct requests_output out = {&p, ro};
    if (rc == 0)
        rc = rp_output_to(NULL, "requests", false, false, write_requests, &out);
    rp_profile_free(&p);
    return rc == 0 ? RP_EXIT_OK : RP_EXIT_FAILURE;
}

static int run_requests(int argc, char **argv, rp_options *o, regex_t *re, bool *have_re)
{
    static const struct option options[] = {
        RP_SHARED_OPTIONS,
        {"slowest", required_argument, NULL, OPT_SLOWEST},
        {"json", no_argument, NULL, OPT_JSON},
        {"endpoint", required_argument, NULL, OPT_ENDPOINT},
        {NULL, 0, NULL, 0},
    };
    rp_requests_opts ro = {0};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        int shared = rp_options_parse(o, c, optarg);
        if (shared < 0)
            return RP_EXIT_USAGE;
        if (c == OPT_SLOWEST) {
            if (rp_parse_count_option("--slowest", optarg, &ro.slowest) != 0)
                return RP_EXIT_USAGE;
        } else if (c == OPT_JSON) {
            ro.json = true;
        } else if (c == OPT_ENDPOINT) {
            if (*have_re)
                regfree(re);
            if (regcomp(re, optarg, REG_EXTENDED | REG_NOSUB) != 0)
                return rp_usage_error("requests: --endpoint expects a regular expression, got '%s'", optarg);
            *have_re = true;
            ro.endpoint = re;
        } else if (shared == 0) {
            return rp_usage_error("requests: unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return rp_usage_error("requests: missing PATH (a session directory or profile file)");
    if (o->tags.count > 0 || o->measure != RP_MEASURE_TIME)
        return rp_usage_error("requests: counts every request; it takes no --tagfocus/--tagignore/--measure");
    if (ro.json && ro.slowest)
        return rp_usage_error("requests: --json prints the endpoint table; it takes no --slowest");
    return requests(argv + optind, argc - optind, o, &ro);
}

int cmd_requests(int argc, char **argv)
{
    rp_options o;
    regex_t re;
    bool have_re = false;
    rp_options_init(&o);
    int status = run_requests(argc, argv, &o, &re, &have_re);
    if (have_re)
        regfree(&re);
    rp_options_free(&o);
    return status;
}
