/*
 * profile/load.c — reading and merging the inputs. See load.h.
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
#include "profile_read.h"
#include "../common/vec.h"
#include "diag.h"
#include "merge.h"
#include "timewin.h"

struct loader {
    rp_profile *merged;
    size_t loaded; /* profiles merged so far */
    bool failed;   /* a named file or directory could not be used */
    bool broken;   /* a merge failed half-way: the merged tables are unusable */
    /* Pass 1 of a window back from the newest part: only its end is wanted. */
    bool measuring;
    int64_t newest_end_ns;
    rp_load_visit_fn each; /* or NULL */
    void *each_ctx;
    bool time_slots; /* label each file's samples with its slot */
};

/* Whether the file read into `one` is in the window (counted either way). */
static bool in_window(struct loader *l, const rp_profile *one)
{
    rp_load_facts *f = &l->merged->load;
    if (f->windowed && !rp_time_window_overlaps(f->window_from_ns, f->window_to_ns,
                                                one->meta.start_time_ns, one->meta.duration_ns)) {
        f->files_outside++;
        return false;
    }
    f->files_kept++;
    return true;
}

/* Pass 1: notes the end of the file read into `one`. */
static void note_end(struct loader *l, const rp_profile *one)
{
    int64_t end = one->meta.start_time_ns + one->meta.duration_ns;
    if (end > l->newest_end_ns)
        l->newest_end_ns = end;
}

/* Merges one file, with its time slot when asked for. */
static int merge_file(struct loader *l, const rp_profile *one, char *err)
{
    if (!l->time_slots)
        return rp_merge_into(l->merged, one, l->loaded, true, err);
    rp_load_facts *f = &l->merged->load;
    char slot[24];
    snprintf(slot, sizeof(slot), "%zu", f->slot_count);
    if (RP_VEC_RESERVE(f->slots, f->slots_cap, f->slot_count + 1) != 0) {
        snprintf(err, RP_READ_ERROR_MAX, "out of memory");
        return -1;
    }
    f->slots[f->slot_count++] = (rp_time_slot){one->meta.start_time_ns, one->meta.duration_ns};
    f->has_parts = f->has_parts || one->meta.part > 0;
    return rp_merge_into_labelled(l->merged, one, l->loaded, true, RP_SLOT_LABEL, slot, err);
}

/* Merges the file read into `one` when it is in the window. Returns 0 or
 * -1 (err filled). */
static int take(struct loader *l, const rp_profile *one, char *err)
{
    if (l->measuring) {
        note_end(l, one);
        return 0;
    }
    if (!in_window(l, one))
        return 0;
    if (l->each && l->each(one, l->each_ctx) != 0) {
        snprintf(err, RP_READ_ERROR_MAX, "out of memory");
        l->broken = true;
        return -1;
    }
    if (merge_file(l, one, err) != 0) {
        /* The merged tables may hold part of this file: stop here. */
        l->broken = true;
        return -1;
    }
    l->loaded++;
    return 0;
}

/* Reads one file and merges it (in pass 1, notes its end). Returns 0, or
 * -1 after saying why with the given severity (pass 2 only). */
static int load_file(struct loader *l, const char *path, bool named)
{
    rp_profile one;
    char err[RP_READ_ERROR_MAX];
    int rc = -1;
    if (rp_profile_init(&one, true) != 0)
        snprintf(err, sizeof(err), "out of memory");
    else if (rp_profile_read_file(&one, path, err) == 0)
        rc = take(l, &one, err);
    rp_profile_free(&one);
    if (rc != 0 && !l->measuring) {
        if (named || l->broken)
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
        if (!l->measuring)
            rp_error("%s: cannot read directory: %s", dir, strerror(err));
        l->failed = true;
        return;
    }
    if (n == 0) {
        if (!l->measuring)
            rp_error("%s: no profile files (*.json.gz) in this directory", dir);
        l->failed = true;
    }
    for (size_t i = 0; i < n && !l->broken; i++)
        load_file(l, files[i], false);
    free_names(files, n);
}

/* Every path, files and directories, once. */
static void load_all(struct loader *l, char *const *paths, int count)
{
    for (int i = 0; i < count && !l->broken; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) {
            if (!l->measuring)
                rp_error("%s: %s", paths[i], strerror(errno));
            l->failed = true;
        } else if (S_ISDIR(st.st_mode)) {
            load_directory(l, paths[i]);
        } else if (load_file(l, paths[i], true) != 0) {
            l->failed = true;
        }
    }
}

/* The window's bounds; with a duration back, pass 1 finds the newest end. */
static void resolve_window(struct loader *l, char *const *paths, int count,
                           const rp_time_window *window)
{
    rp_load_facts *f = &l->merged->load;
    f->windowed = rp_time_window_active(window);
    if (!f->windowed)
        return;
    if (rp_time_window_needs_newest(window)) {
        l->measuring = true;
        l->newest_end_ns = INT64_MIN;
        load_all(l, paths, count);
        l->measuring = false;
        l->failed = false;
    }
    rp_time_window_resolve(window, l->newest_end_ns, &f->window_from_ns, &f->window_to_ns);
}

static void say_nothing_loaded(const struct loader *l)
{
    const rp_load_facts *f = &l->merged->load;
    char from[32], to[32];
    if (!f->windowed || f->files_outside == 0)
        rp_error("no readable profile in the given paths");
    else
        rp_error("none of the %zu parts overlaps the window %s .. %s", f->files_outside,
                 f->window_from_ns == INT64_MIN ? "(start)" : rp_time_format(f->window_from_ns, from, sizeof(from)),
                 f->window_to_ns == INT64_MAX ? "(end)" : rp_time_format(f->window_to_ns, to, sizeof(to)));
}

static int load_paths(char *const *paths, int count, const rp_time_window *window,
                      struct loader *l)
{
    if (rp_profile_init(l->merged, true) != 0) {
        rp_error("out of memory");
        return -1;
    }
    resolve_window(l, paths, count, window);
    load_all(l, paths, count);
    if (l->loaded == 0 && !l->failed)
        say_nothing_loaded(l);
    return l->loaded > 0 && !l->failed && !l->broken ? 0 : -1;
}

int rp_load_paths(char *const *paths, int count, const rp_time_window *window, bool time_slots,
                  rp_profile *merged)
{
    struct loader l = {.merged = merged, .time_slots = time_slots};
    return load_paths(paths, count, window, &l);
}

int rp_load_paths_visit(char *const *paths, int count, const rp_time_window *window,
                        rp_profile *merged, rp_load_visit_fn each, void *ctx)
{
    struct loader l = {.merged = merged, .each = each, .each_ctx = ctx};
    return load_paths(paths, count, window, &l);
}
