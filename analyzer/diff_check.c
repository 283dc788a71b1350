/*
 * analyzer/diff_check.c — the regression gate of `rperf-analyze diff`.
 * See diff_check.h.
 */
#include "diff_check.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/filename.h"
#include "../profile/diag.h"
#include "../profile/load.h"
#include "../profile/output.h"
#include "../profile/regress.h"
#include "commands.h"
#include "pipeline.h"

typedef struct runs {
    char **paths; /* owned */
    size_t count, cap;
} runs;

static int add_run(runs *r, const char *path)
{
    if (r->count == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        char **grown = realloc(r->paths, cap * sizeof(*grown));
        if (!grown)
            return -1;
        r->paths = grown;
        r->cap = cap;
    }
    if (!(r->paths[r->count] = strdup(path)))
        return -1;
    r->count++;
    return 0;
}

static void free_runs(runs *r)
{
    for (size_t i = 0; i < r->count; i++)
        free(r->paths[i]);
    free(r->paths);
}

/* A run's file: a profile the loader reads from a directory, or pprof's. */
static bool is_profile_name(const char *name)
{
    return rp_is_profile_file_name(name) || (name[0] != '.' && rp_has_suffix(name, ".pb.gz"));
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Adds the runs `path` holds (see diff_check.h). */
static int expand(runs *r, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return add_run(r, path); /* a file: one run (a missing one is said when loaded) */
    struct dirent **entries;
    int n = scandir(path, &entries, NULL, by_name);
    if (n < 0)
        return add_run(r, path);
    runs subdirs = {0}, files = {0};
    bool session = false;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char child[4096];
        const char *name = entries[i]->d_name;
        snprintf(child, sizeof(child), "%s/%s", path, name);
        if (name[0] != '.' && stat(child, &st) == 0 && S_ISDIR(st.st_mode))
            rc |= add_run(&subdirs, child);
        else if (is_profile_name(name)) {
            rc |= add_run(&files, child);
            session = session || rp_is_session_file_name(name);
        }
        free(entries[i]);
    }
    free(entries);
    if (rc == 0 && subdirs.count)
        for (size_t i = 0; i < subdirs.count && rc == 0; i++)
            rc = add_run(r, subdirs.paths[i]);
    else if (rc == 0 && files.count && !session)
        for (size_t i = 0; i < files.count && rc == 0; i++)
            rc = add_run(r, files.paths[i]);
    else if (rc == 0)
        rc = add_run(r, path); /* a session: one run */
    free_runs(&subdirs);
    free_runs(&files);
    return rc;
}

static int add_side(rp_regress *g, bool target, char **paths, int count, const rp_options *o)
{
    runs r = {0};
    int rc = 0;
    for (int i = 0; i < count && rc == 0; i++)
        if (expand(&r, paths[i]) != 0) {
            rp_error("out of memory");
            rc = -1;
        }
    for (size_t i = 0; i < r.count && rc == 0; i++) {
        rp_profile p;
        rc = rp_pipeline_load(&r.paths[i], 1, o, false, false, &p);
        if (rc == 0 && rp_regress_add_run(g, target, &p) != 0) {
            rp_error("out of memory");
            rc = -1;
        }
        rp_profile_free(&p);
    }
    free_runs(&r);
    return rc;
}

static int write_verdict(rp_out *out, const void *ctx)
{
    const void *const *args = ctx;
    return rp_regress_write(out, args[0], *(const bool *)args[1]);
}

int rp_diff_check(char **base, int base_count, char **target, int target_count, double pct, bool json,
                  const rp_options *o)
{
    rp_regress g;
    rp_regress_init(&g, pct);
    int status = RP_EXIT_FAILURE;
    if (add_side(&g, false, base, base_count, o) == 0 && add_side(&g, true, target, target_count, o) == 0) {
        if (rp_regress_compute(&g) != 0) {
            rp_error("out of memory");
        } else {
            const void *args[] = {&g, &json};
            if (rp_output_to(NULL, "diff --check", false, false, write_verdict, args) == 0)
                status = g.found_count ? 1 : 0;
        }
    }
    rp_regress_free(&g);
    return status;
}
