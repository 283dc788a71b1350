/*
 * rperf/page.c — a page of rperf-analyze's, shown in a browser. See page.h.
 */
#include "page.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools.h"

/* xdg-open somewhere on PATH. */
static bool have_xdg_open(void)
{
    const char *path = getenv("PATH");
    if (!path)
        return false;
    char *copy = strdup(path), *save = NULL;
    bool found = false;
    for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char file[PATH_MAX];
        snprintf(file, sizeof(file), "%s/xdg-open", *dir ? dir : ".");
        found = access(file, X_OK) == 0;
    }
    free(copy);
    return found;
}

/* Whether a browser can be shown: a graphical session and xdg-open. */
static bool can_open_browser(void)
{
    const char *x = getenv("DISPLAY"), *wayland = getenv("WAYLAND_DISPLAY");
    return ((x && *x) || (wayland && *wayland)) && have_xdg_open();
}

int rperf_write_page(const char *name, const char *const *args, const char *const *paths, char dir[PATH_MAX],
                     char page[RPERF_PAGE_PATH_MAX])
{
    if (rperf_temp_dir("tmp", dir) != 0)
        return 1;
    snprintf(page, RPERF_PAGE_PATH_MAX, "%s/%s.html", dir, name);
    const char *argv[32];
    int n = 0;
    for (; *args && n < 24; args++)
        argv[n++] = *args;
    argv[n++] = "-o";
    argv[n++] = page;
    for (; *paths && n < 31; paths++)
        argv[n++] = *paths;
    argv[n] = NULL;
    if (rperf_analyze(false, argv) != 0) {
        rperf_remove_tree(dir);
        return 1;
    }
    return 0;
}

int rperf_browse(const char *target)
{
    if (!can_open_browser())
        return -1;
    fprintf(stderr, "rperf: opening %s\n", target);
    char *open[] = {"xdg-open", (char *)target, NULL};
    int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
    FILE *null = fopen("/dev/null", "w");
    if (null) {
        dup2(fileno(null), STDOUT_FILENO);
        dup2(fileno(null), STDERR_FILENO);
        fclose(null);
    }
    int rc = rperf_run(open, NULL, 0);
    dup2(saved_out, STDOUT_FILENO);
    dup2(saved_err, STDERR_FILENO);
    close(saved_out);
    close(saved_err);
    if (rc != 0) {
        fprintf(stderr, "rperf: xdg-open failed; open %s in a browser\n", target);
        return 1;
    }
    return 0;
}

int rperf_show_page(const char *name, const char *const *args, const char *const *paths)
{
    char dir[PATH_MAX], page[RPERF_PAGE_PATH_MAX];
    if (rperf_write_page(name, args, paths, dir, page) != 0)
        return 1;
    int rc = rperf_browse(page);
    if (rc < 0) {
        fprintf(stderr, "rperf: no display; open this page in a browser:\n");
        printf("%s\n", page);
        return 0;
    }
    return rc;
}
