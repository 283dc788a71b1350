/*
 * analyzer/cmd_diff.c — `rperf-analyze diff [options] BASE TARGET`.
 *
 * Owns: the diff subcommand's command line: the two sides (BASE and
 * TARGET, each a session directory or a profile file; --base and
 * --target, repeatable, for several paths per side), --normalize, --text
 * (the default) or --html (the differential flame graph, html.c) or
 * --format table|table-json (the gem's flat tables, table.c), -o, and
 * the shared options (filters apply to both sides alike); --check PCT
 * [--json], the regression gate over several runs per side
 * (diff_check.c). Comparing is diff.c's.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "diff_check.h"
#include "../profile/diag.h"
#include "../profile/encode/diff.h"
#include "../profile/encode/html.h"
#include "../profile/encode/table.h"
#include "options.h"
#include "../profile/output.h"
#include "pipeline.h"

enum { OPT_NORMALIZE = 0x2000, OPT_BASE, OPT_TARGET, OPT_HTML, OPT_TEXT, OPT_CHECK, OPT_JSON, OPT_FORMAT };

/* What the diff is written as. */
typedef enum diff_format { DIFF_TEXT, DIFF_HTML, DIFF_TABLE, DIFF_TABLE_JSON } diff_format;

struct diff_args {
    char **base, **target;
    int base_count, target_count;
    bool normalize, json;
    diff_format format;
    double check_pct; /* > 0: --check */
    const char *output;
    rp_options o;
};

struct diff_text {
    const rp_diff *d;
    const struct diff_args *a;
};

struct diff_page {
    const rp_profile *base, *target;
};

static int write_page(rp_out *out, const void *ctx)
{
    const struct diff_page *pg = ctx;
    return rp_html_write_diff(pg->base, pg->target, out);
}

static int write_text(rp_out *out, const void *ctx)
{
    const struct diff_text *t = ctx;
    return rp_diff_write_text(out, t->d, t->a->normalize, t->a->o.encode.top);
}

struct diff_table {
    const rp_profile *base, *target;
    const struct diff_args *a;
};

static int write_table(rp_out *out, const void *ctx)
{
    const struct diff_table *t = ctx;
    return rp_table_diff_write(t->base, t->target, out, t->a->format == DIFF_TABLE_JSON, t->a->o.encode.top);
}

/* --format NAME: text, html, table or table-json. */
static int parse_format(const char *name, diff_format *format)
{
    static const char *const names[] = {"text", "html", "table", "table-json"};
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0) {
            *format = (diff_format)i;
            return 0;
        }
    return rp_usage_error("diff: --format is text, html, table or table-json, got '%s'", name);
}

static int add_path(char ***paths, int *count, char *path)
{
    char **grown = realloc(*paths, (size_t)(*count + 1) * sizeof(char *));
    if (!grown)
        return -1;
    grown[(*count)++] = path;
    *paths = grown;
    return 0;
}

/* Returns 0, or RP_EXIT_USAGE after a usage error. */
static int parse(int argc, char **argv, struct diff_args *a)
{
    static const struct option options[] = {
        RP_SHARED_OPTIONS,
        {"normalize", no_argument, NULL, OPT_NORMALIZE},
        {"base", required_argument, NULL, OPT_BASE},
        {"target", required_argument, NULL, OPT_TARGET},
        {"output", required_argument, NULL, 'o'},
        {"html", no_argument, NULL, OPT_HTML},
        {"text", no_argument, NULL, OPT_TEXT},
        {"check", required_argument, NULL, OPT_CHECK},
        {"json", no_argument, NULL, OPT_JSON},
        {"format", required_argument, NULL, OPT_FORMAT},
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
        int shared = rp_options_parse(&a->o, c, optarg);
        if (shared < 0)
            return RP_EXIT_USAGE;
        if (shared > 0)
            continue;
        if (c == OPT_NORMALIZE)
            a->normalize = true;
        else if (c == OPT_HTML || c == OPT_TEXT)
            a->format = c == OPT_HTML ? DIFF_HTML : DIFF_TEXT;
        else if (c == OPT_FORMAT) {
            if (parse_format(optarg, &a->format) != 0)
                return RP_EXIT_USAGE;
        }
        else if (c == 'o')
            a->output = optarg;
        else if (c == OPT_JSON)
            a->json = true;
        else if (c == OPT_CHECK) {
            char *end;
            a->check_pct = strtod(optarg, &end);
            if (end == optarg || (*end && strcmp(end, "%") != 0) || !(a->check_pct > 0 && a->check_pct < 1e6))
                return rp_usage_error("diff: --check expects the growth that fails, a percentage above 0 (e.g. "
                                      "10), got '%s'", optarg);
        }
        else if (c == OPT_BASE || c == OPT_TARGET) {
            if (c == OPT_BASE ? add_path(&a->base, &a->base_count, optarg) : add_path(&a->target, &a->target_count, optarg))
                return rp_usage_error("diff: out of memory");
        } else if (c == '?' && optopt)
            return rp_usage_error("diff: option '%s' needs a value", argv[optind - 1]);
        else
            return rp_usage_error("diff: unknown option '%s'", argv[optind - 1]);
    }
    int rest = argc - optind;
    if (a->base_count == 0 && a->target_count == 0) {
        if (rest != 2)
            return rp_usage_error("diff: expected BASE and TARGET (session directories or profile files), got %d "
                                  "path%s", rest, rest == 1 ? "" : "s");
        if (add_path(&a->base, &a->base_count, argv[optind]) || add_path(&a->target, &a->target_count, argv[optind + 1]))
            return rp_usage_error("diff: out of memory");
        return 0;
    }
    if (rest != 0 || a->base_count == 0 || a->target_count == 0)
        return rp_usage_error("diff: with --base and --target, give each at least once and no other path");
    return 0;
}

/* What --check leaves out, said as a usage error. */
static int check_alone(const struct diff_args *a)
{
    if (a->check_pct > 0 && (a->format != DIFF_TEXT || a->normalize || a->output))
        return rp_usage_error("diff: --check prints its verdict on stdout; no --html, --format, --normalize or -o "
                              "with it");
    if (a->normalize && a->format >= DIFF_TABLE)
        return rp_usage_error("diff: a table compares shares of each side's total already; no --normalize with it");
    if (a->json && a->check_pct <= 0)
        return rp_usage_error("diff: --json goes with --check");
    return 0;
}

int cmd_diff(int argc, char **argv)
{
    struct diff_args a = {0};
    rp_options_init(&a.o);
    int status = RP_EXIT_USAGE;
    rp_profile base, target;
    bool loaded_base = false, loaded_target = false;
    if (parse(argc, argv, &a) != 0 || check_alone(&a) != 0)
        goto out;
    if (a.check_pct > 0) {
        status = rp_diff_check(a.base, a.base_count, a.target, a.target_count, a.check_pct, a.json, &a.o);
        goto out;
    }
    status = RP_EXIT_FAILURE;
    loaded_base = true;
    if (rp_pipeline_load(a.base, a.base_count, &a.o, false, false, &base) != 0)
        goto out;
    loaded_target = true;
    if (rp_pipeline_load(a.target, a.target_count, &a.o, false, false, &target) != 0)
        goto out;
    if (a.format >= DIFF_TABLE) {
        struct diff_table t = {&base, &target, &a};
        if (rp_output_to(a.output, "diff", false, false, write_table, &t) == 0)
            status = RP_EXIT_OK;
        goto out;
    }
    if (a.format == DIFF_HTML) {
        struct diff_page pg = {&base, &target};
        if (rp_output_to(a.output, "html", false, false, write_page, &pg) == 0)
            status = RP_EXIT_OK;
        goto out;
    }
    rp_diff d;
    if (rp_diff_compute(&base, &target, &d) != 0) {
        rp_error("out of memory");
        goto out;
    }
    struct diff_text t = {&d, &a};
    if (rp_output_to(a.output, "diff", false, false, write_text, &t) == 0)
        status = RP_EXIT_OK;
    rp_diff_free(&d);
out:
    if (loaded_base)
        rp_profile_free(&base);
    if (loaded_target)
        rp_profile_free(&target);
    free(a.base);
    free(a.target);
    rp_options_free(&a.o);
    return status;
}
