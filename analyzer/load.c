/*
 * analyzer/load.c — reading and merging the inputs. See load.h.
 */
#include "load.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/filename.h"
#include "../common/profile_read.h"
#include "../common/vec.h"
#include "diag.h"
#include "merge.h"

struct loader {
    rp_profile *merged;
    size_t loaded; /* profiles merged so far */
    bool failed;   /* a named file or directory could not be used */
    bool broken;   /* a merge failed half-way: the merged tables are unusable */
};

/* Reads one file and merges it. Returns 0, or -1 after saying why with the
 * given severity. */
static int load_file(struct loader *l, const char *path, bool named)
{
    rp_profile one;
    char err[RP_READ_ERROR_MAX];
    int rc = -1;
    if (rp_profile_init(&one, true) != 0) {
        snprintf(err, sizeof(err), "out of memory");
    } else if (rp_profile_read_file(&one, path, err) == 0) {
        rc = rp_merge_into(l->merged, &one, l->loaded, true, err);
        if (rc != 0) {
            /* The merged tables may hold part of this file: stop here. */
            l->broken = true;
            named = true;
        } else {
            l->loaded++;
        }
    }
    rp_profile_free(&one);
    if (rc != 0) {
        if (named)
            rp_error("%s: %s", path, err);
        else
            rp_warn("%s: %s; skipped", path, err);
    }
    return rc;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* The profile files of a directory, sorted, in *names (*count of them).
 * Returns 0, or an errno value (the directory cannot be read, or memory
 * ran out: a partial list would silently leave profiles out). */
static int list_profiles(const char *dir, char ***names, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno;
    char **list = NULL;
    size_t n = 0, cap = 0;
    int err = 0;
    struct dirent *e;
    while (!err && (errno = 0, e = readdir(d)) != NULL) {
        if (!rp_is_profile_file_name(e->d_name))
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if (RP_VEC_RESERVE(list, cap, n + 1) != 0 || !(list[n] = malloc(len))) {
            err = ENOMEM;
            break;
        }
        snprintf(list[n++], len, "%s/%s", dir, e->d_name);
    }
    if (!err && errno)
        err = errno; /* readdir failed */
    closedir(d);
    if (err) {
        free_names(list, n);
        return err;
    }
    if (list)
        qsort(list, n, sizeof(char *), compare_names);
    *names = list;
    *count = n;
    return 0;
}

static void load_directory(struct loader *l, const char *dir)
{
    size_t n = 0;
    char **files = NULL;
    int err = list_profiles(dir, &files, &n);
    if (err) {
        rp_error("%s: cannot read directory: %s", dir, strerror(err));
        l->failed = true;
        return;
    }
    if (n == 0) {
        rp_error("%s: no profile files (*.json.gz) in this directory", dir);
        l->failed = true;
    }
    for (size_t i = 0; i < n && !l->broken; i++)
        load_file(l, files[i], false);
    free_names(files, n);
}

int rp_load_paths(char *const *paths, int count, rp_profile *merged)
{
    struct loader l = {.merged = merged};
    if (rp_profile_init(merged, true) != 0) {
        rp_error("out of memory");
        return -1;
    }
    for (int i = 0; i < count && !l.broken; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) {
            rp_error("%s: %s", paths[i], strerror(errno));
            l.failed = true;
        } else if (S_ISDIR(st.st_mode)) {
            load_directory(&l, paths[i]);
        } else if (load_file(&l, paths[i], true) != 0) {
            l.failed = true;
        }
    }
    if (l.loaded == 0 && !l.failed)
        rp_error("no readable profile in the given paths");
    return l.loaded > 0 && !l.failed && !l.broken ? 0 : -1;
}
