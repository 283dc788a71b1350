/*
 * rperf/cmd_report.c — `rperf report [--html|--text|--top|--format
 * table|table-json] [filters] [FILE]`: the viewer of a profile (file or
 * session directory) opened in a browser, or its page's path printed
 * where there is no display; or the text report, the top table, the page,
 * the flat table on stdout; with --host/--port the viewer served over
 * HTTP (serve.h). A directory of snapshots (rperf record --snapshot-dir)
 * is served with its history page (history.h). Default FILE: rperf.json.gz. The analyzer's
 * selections apply to each (--tagfocus, --tagignore, --since, --until,
 * --measure, --hide-idle, --lines, --my-code): they are rperf-analyze's own options,
 * passed on.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "history.h"
#include "hosts.h"
#include "options.h"
#include "page.h"
#include "serve.h"
#include "subcommands.h"
#include "tools.h"
#include "usage.h"

#define PASSED_MAX 32

/* --format's values, as the gem takes them. */
static bool is_table_format(const char *name)
{
    return strcmp(name, "table") == 0 || strcmp(name, "table-json") == 0;
}

/* rperf-analyze's `first...` then the selections, the file, NULL. */
static int analyze(const char *const *first, int count, const char **passed, int n, const char *file)
{
    const char *args[PASSED_MAX + 8];
    int k = 0;
    for (int i = 0; i < count; i++)
        args[k++] = first[i];
    for (int i = 0; i < n; i++)
        args[k++] = passed[i];
    args[k++] = file;
    args[k] = NULL;
    return rperf_analyze(false, args);
}

/* The page served over HTTP (--host, --port) until Ctrl-C; its
 * directory removed after. */
static int serve(const char *const *html, const char *file, const char *host, int port)
{
    char dir[PATH_MAX], page[RPERF_PAGE_PATH_MAX];
    if (rperf_write_page("rperf-report", html, (const char *[]){file, NULL}, dir, page) != 0)
        return 1;
    int rc = rperf_serve_page(page, host, port);
    rperf_remove_tree(dir);
    return rc;
}

/* A directory of snapshots: its history page, served (history.h) on
 * --host/--port, or on a port of the loopback's and opened in a browser. */
static int history(const char *dir, bool viewer, int selections, const char *host, int port, bool served)
{
    if (!viewer || selections > 0) {
        fprintf(stderr, "rperf: %s is a directory of snapshots, which opens the time-travel viewer (their history); "
                        "--top, --text, --html, --format and the selections take a profile file or a session "
                        "directory\n",
                dir);
        return 1;
    }
    return rperf_history_serve(dir, host, port, !served);
}

int rperf_cmd_report(int argc, char **argv)
{
    const char *view = "viewer", *format = NULL, *passed[PASSED_MAX], *host = NULL, *port = NULL, *allow = NULL;
    bool allowed = false;
    int n = 0;
    char *file = "rperf.json.gz";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int got;
        if (strcmp(a, "--html") == 0 || strcmp(a, "--text") == 0 || strcmp(a, "--top") == 0)
            view = a + 2;
        else if ((got = rperf_opt_selection(argc, argv, &i, passed, &n, PASSED_MAX, rperf_report_usage)) != 0) {
            if (got < 0)
                return 1;
        } else if ((got = rperf_opt_value(argc, argv, &i, NULL, "--format", &format, rperf_report_usage))) {
            if (got < 0)
                return 1;
            if (!is_table_format(format))
                return rperf_usage_error(rperf_report_usage, "invalid argument: --format %s", format);
            view = "table";
        } else if ((got = rperf_opt_value(argc, argv, &i, NULL, "--host", &host, rperf_report_usage)) ||
                   (got = rperf_opt_value(argc, argv, &i, NULL, "--port", &port, rperf_report_usage))) {
            if (got < 0)
                return 1;
        } else if ((got = rperf_opt_value(argc, argv, &i, NULL, "--allow-host", &allow, rperf_report_usage))) {
            if (got < 0)
                return 1;
            if (rperf_hosts_allow(allow) != 0)
                return rperf_usage_error(rperf_report_usage, "--allow-host expects a host name (at most %d of them), "
                                                             "got '%s'",
                                         RPERF_HOSTS_MAX, allow);
            allowed = true;
        } else if (rperf_opt_flag(a, "-h", "--help"))
            return rperf_report_usage(stdout), 0;
        else if (a[0] == '-')
            return rperf_usage_error(rperf_report_usage, "invalid option: %s", a);
        else
            file = argv[i];
    }
    if ((host || port || allowed) && strcmp(view, "viewer") != 0)
        return rperf_usage_error(rperf_report_usage, "--host, --port and --allow-host serve the viewer: not with --%s",
                                 view);
    int port_number = 0;
    if (port && (port_number = rperf_parse_port(port)) < 0)
        return rperf_usage_error(rperf_report_usage, "--port must be 1..65535, got '%s'", port);
    if (!rperf_files_exist(&file, 1))
        return 1;
    if (rperf_is_snapshot_dir(file))
        return history(file, strcmp(view, "viewer") == 0, n, host, port_number, host || port);
    if (strcmp(view, "top") == 0)
        return analyze((const char *[]){"report", "--top", "20"}, 3, passed, n, file);
    if (strcmp(view, "table") == 0)
        return analyze((const char *[]){"report", "--format", format}, 3, passed, n, file);
    if (strcmp(view, "text") == 0)
        return analyze((const char *[]){"report"}, 1, passed, n, file);
    if (strcmp(view, "html") == 0)
        return analyze((const char *[]){"convert", "--html"}, 2, passed, n, file);
    const char *html[PASSED_MAX + 3] = {"convert", "--html"}, *paths[] = {file, NULL};
    for (int i = 0; i < n; i++)
        html[2 + i] = passed[i];
    html[2 + n] = NULL;
    if (host || port)
        return serve(html, file, host, port_number);
    return rperf_show_page("rperf-report", html, paths);
}
