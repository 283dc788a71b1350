/*
 * rperf/cmd_diff.c — `rperf diff [--html|--text|--top|--format
 * table|table-json] [--normalize] [-o OUT] BASE TARGET`: two profiles
 * compared (target - base), as text (the default), the top table, the
 * flat diff table, or the differential flame graph opened in a browser
 * (or written to OUT), rperf-analyze's selections (--tagfocus ...)
 * applied to both; with --check PCT [--json], the
 * regression gate over several runs per side (rperf-analyze diff --check:
 * exit status 1 when a method regressed).
 */
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "page.h"
#include "subcommands.h"
#include "tools.h"
#include "usage.h"

int rperf_cmd_diff(int argc, char **argv)
{
    const char *view = "text", *args[16];
    int n = 0, i = 1;
    bool output = false;
    for (; i < argc; i++) {
        const char *a = argv[i], *out;
        int got;
        if (strcmp(a, "--html") == 0 || strcmp(a, "--text") == 0 || strcmp(a, "--top") == 0) {
            view = a + 2;
        } else if ((strcmp(a, "--normalize") == 0 || strcmp(a, "--json") == 0) && n < 12) {
            args[n++] = a;
        } else if ((got = rperf_opt_selection(argc, argv, &i, args, &n, 12, rperf_diff_usage)) != 0) {
            if (got < 0)
                return 1;
        } else if ((got = rperf_opt_value(argc, argv, &i, NULL, "--format", &out, rperf_diff_usage))) {
            if (got < 0)
                return 1;
            if (strcmp(out, "table") != 0 && strcmp(out, "table-json") != 0)
                return rperf_usage_error(rperf_diff_usage, "invalid argument: --format %s", out);
            view = "table";
            if (n < 12) {
                args[n++] = "--format";
                args[n++] = out;
            }
        } else if ((got = rperf_opt_value(argc, argv, &i, NULL, "--check", &out, rperf_diff_usage))) {
            if (got < 0)
                return 1;
            if (n < 12) {
                args[n++] = "--check";
                args[n++] = out;
            }
        } else if ((got = rperf_opt_value(argc, argv, &i, "-o", "--output", &out, rperf_diff_usage))) {
            if (got < 0)
                return 1;
            output = true;
            if (n < 12) {
                args[n++] = "-o";
                args[n++] = out;
            }
        } else if (rperf_opt_flag(a, "-h", "--help")) {
            return rperf_diff_usage(stdout), 0;
        } else if (a[0] == '-') {
            return rperf_usage_error(rperf_diff_usage, "invalid option: %s", a);
        } else {
            break;
        }
    }
    if (argc - i != 2)
        return rperf_usage_error(rperf_diff_usage, "Two profile files required.");
    if (!rperf_files_exist(argv + i, 2))
        return 1;
    const char *run[24] = {"diff"};
    int r = 1;
    if (strcmp(view, "top") == 0) {
        run[r++] = "--top";
        run[r++] = "20";
    } else if (strcmp(view, "html") == 0) {
        run[r++] = "--html";
    }
    for (int k = 0; k < n; k++)
        run[r++] = args[k];
    if (strcmp(view, "html") == 0 && !output) {
        run[r] = NULL;
        const char *paths[] = {argv[i], argv[i + 1], NULL};
        return rperf_show_page("rperf-diff", run, paths);
    }
    run[r++] = argv[i];
    run[r++] = argv[i + 1];
    run[r] = NULL;
    return rperf_analyze(false, run);
}
