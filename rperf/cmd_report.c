/*
 * rperf/cmd_report.c — `rperf report [--html|--text|--top|--format
 * table|table-json] [--lines] [FILE]`: the viewer of a profile (file or
 * session directory) opened in a browser, or its page's path printed
 * where there is no display; or the text report, the top table, the page,
 * the flat table on stdout. Default FILE: rperf.json.gz.
 */
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "page.h"
#include "subcommands.h"
#include "tools.h"
#include "usage.h"

/* --format's values, as the gem takes them. */
static bool is_table_format(const char *name)
{
    return strcmp(name, "table") == 0 || strcmp(name, "table-json") == 0;
}

int rperf_cmd_report(int argc, char **argv)
{
    const char *view = "viewer", *lines = NULL, *format = NULL;
    char *file = "rperf.json.gz";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int got;
        if (strcmp(a, "--html") == 0 || strcmp(a, "--text") == 0 || strcmp(a, "--top") == 0)
            view = a + 2;
        else if ((got = rperf_opt_value(argc, argv, &i, NULL, "--format", &format, rperf_report_usage))) {
            if (got < 0)
                return 1;
            if (!is_table_format(format))
                return rperf_usage_error(rperf_report_usage, "invalid argument: --format %s", format);
            view = "table";
        }
        else if (strcmp(a, "--lines") == 0)
            lines = a;
        else if (rperf_opt_flag(a, "-h", "--help"))
            return rperf_report_usage(stdout), 0;
        else if (a[0] == '-')
            return rperf_usage_error(rperf_report_usage, "invalid option: %s", a);
        else
            file = argv[i];
    }
    if (!rperf_files_exist(&file, 1))
        return 1;
    if (strcmp(view, "top") == 0) {
        const char *args[] = {"report", "--top", "20", lines ? lines : file, lines ? file : NULL, NULL};
        return rperf_analyze(false, args);
    }
    if (strcmp(view, "table") == 0) {
        const char *args[] = {"report", "--format", format, lines ? lines : file, lines ? file : NULL, NULL};
        return rperf_analyze(false, args);
    }
    if (strcmp(view, "text") == 0) {
        const char *args[] = {"report", lines ? lines : file, lines ? file : NULL, NULL};
        return rperf_analyze(false, args);
    }
    const char *html[] = {"convert", "--html", NULL}, *paths[] = {file, NULL};
    if (strcmp(view, "html") == 0) {
        const char *args[] = {"convert", "--html", file, NULL};
        return rperf_analyze(false, args);
    }
    return rperf_show_page("rperf-report", html, paths);
}
