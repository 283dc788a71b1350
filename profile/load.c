/*
 * profile/load.c — reading and merging the inputs. See load.h.
 *
 * Threads: the calling thread lists the files, then reading threads take
 * the next file in turn, each with its own reader, and leave the profile
 * in a ring of slots; the calling thread merges the slots in file order
 * and frees each for the next file. A reader waits while the ring is full,
 * so memory holds at most ring-size files besides the merged profile. The
 * pool's lock guards `next`, `taken`, `stop` and each slot's `ready`; a
 * slot's profile belongs to its reader until ready, then to the merger.
 */
#include "load.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/filename.h"
#include "schema.h"
#include "../common/vec.h"
#include "diag.h"
#include "profile_read.h"

#define READ_THREADS_MAX 8

/* --- the files ----------------------------------------------------------- */

struct input {
    char *path;
    bool named; /* given as a PATH, not found in a directory */
};

struct inputs {
    struct input *items;
    size_t count, cap;
    bool failed; /* a named file or directory could not be used */
};

static int add_input(struct inputs *in, const char *path, bool named)
{
    if (RP_VEC_RESERVE(in->items, in->cap, in->count + 1) != 0)
        return -1;
    if (!(in->items[in->count].path = strdup(path)))
        return -1;
    in->items[in->count++].named = named;
    return 0;
}

static void free_inputs(struct inputs *in)
{
    for (size_t i = 0; i < in->count; i++)
        free(in->items[i].path);
    free(in->items);
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

bool rp_is_profile_file_name(const char *name)
{
    return name[0] != '.' &&
           (rp_has_suffix(name, RP_PROFILE_SUFFIX) || rp_has_suffix(name, RP_PROFILE_SUFFIX_PLAIN));
}

bool rp_is_session_file_name(const char *name)
{
    regex_t re;
    if (regcomp(&re, "^profile-[0-9]+-[0-9]+\\.json\\.gz$", REG_EXTENDED | REG_NOSUB) != 0)
        return false;
    bool match = regexec(&re, name, 0, NULL, 0) == 0;
    regfree(&re);
    return match;
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

static int add_directory(struct inputs *in, const char *dir)
{
    size_t n = 0;
    char **files = NULL;
    int err = list_profiles(dir, &files, &n);
    if (err) {
        rp_error("%s: cannot read directory: %s", dir, strerror(err));
        in->failed = true;
        return err == ENOMEM ? -1 : 0;
    }
    if (n == 0) {
        rp_error("%s: no profile files (*.json.gz) in this directory", dir);
        in->failed = true;
    }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = add_input(in, files[i], false);
    free_names(files, n);
    return rc;
}

/* Every file of every path, in order. Returns 0, or -1 when out of
 * memory (said). */
static int list_inputs(struct inputs *in, char *const *paths, int count)
{
    for (int i = 0; i < count; i++) {
        struct stat st;
        int rc = 0;
        if (stat(paths[i], &st) != 0) {
            rp_error("%s: %s", paths[i], strerror(errno));
            in->failed = true;
        } else if (S_ISDIR(st.st_mode)) {
            rc = add_directory(in, paths[i]);
        } else {
            rc = add_input(in, paths[i], true);
        }
        if (rc != 0) {
            rp_error("out of memory");
            return -1;
        }
    }
    return 0;
}

/* --- reading, in parallel -------------------------------------------------- */

struct slot {
    rp_profile profile;
    int rc;
    char err[RP_READ_ERROR_MAX];
    bool ready;
};

struct pool {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    const struct inputs *in;
    struct slot *ring;
    size_t ring_size;
    size_t next;  /* the next file a reader takes */
    size_t taken; /* files the merger is done with: their slots are free */
    bool stop;
    pthread_t threads[READ_THREADS_MAX];
    int thread_count;
};

int rp_load_threads(void)
{
    const char *env = getenv("RPERF_ANALYZE_THREADS");
    long n = env && *env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > READ_THREADS_MAX ? READ_THREADS_MAX : (int)n;
}

static void read_into(rp_profile_reader *r, struct slot *s, const char *path)
{
    s->rc = -1;
    if (rp_profile_init(&s->profile, true) != 0)
        snprintf(s->err, sizeof(s->err), "out of memory");
    else if (!r)
        snprintf(s->err, sizeof(s->err), "out of memory");
    else
        s->rc = rp_profile_reader_read_file(r, &s->profile, path, s->err);
}

/* A reading thread: files in turn, while the ring has room. */
static void *read_files(void *arg)
{
    struct pool *pl = arg;
    rp_profile_reader *r = rp_profile_reader_new();
    pthread_mutex_lock(&pl->lock);
    for (;;) {
        while (!pl->stop && pl->next < pl->in->count && pl->next >= pl->taken + pl->ring_size)
            pthread_cond_wait(&pl->changed, &pl->lock);
        if (pl->stop || pl->next >= pl->in->count)
            break;
        size_t i = pl->next++;
        pthread_mutex_unlock(&pl->lock);
        struct slot *s = &pl->ring[i % pl->ring_size];
        read_into(r, s, pl->in->items[i].path);
        pthread_mutex_lock(&pl->lock);
        s->ready = true;
        pthread_cond_broadcast(&pl->changed);
    }
    pthread_mutex_unlock(&pl->lock);
    rp_profile_reader_free(r);
    return NULL;
}

/* Starts the readers; with one file or one core, none (the merger reads
 * itself). Returns 0 or -1 (out of memory). */
static int pool_start(struct pool *pl, const struct inputs *in)
{
    int threads = in->count > 1 ? rp_load_threads() : 0;
    if (threads == 1)
        threads = 0;
    *pl = (struct pool){.in = in, .ring_size = (size_t)threads + 1};
    if (!(pl->ring = rp_calloc_array(pl->ring_size, sizeof(*pl->ring))))
        return -1;
    pthread_mutex_init(&pl->lock, NULL);
    pthread_cond_init(&pl->changed, NULL);
    for (int i = 0; i < threads; i++)
        if (pthread_create(&pl->threads[pl->thread_count], NULL, read_files, pl) == 0)
            pl->thread_count++;
    return 0;
}

/* File `i`, read: by a reader, or here when there is none. */
static struct slot *pool_wait(struct pool *pl, size_t i, rp_profile_reader *own)
{
    struct slot *s = &pl->ring[i % pl->ring_size];
    if (pl->thread_count == 0) {
        read_into(own, s, pl->in->items[i].path);
        return s;
    }
    pthread_mutex_lock(&pl->lock);
    while (!s->ready)
        pthread_cond_wait(&pl->changed, &pl->lock);
    pthread_mutex_unlock(&pl->lock);
    return s;
}

/* The merger is done with file `i`: its slot is free for another. */
static void pool_release(struct pool *pl, size_t i)
{
    struct slot *s = &pl->ring[i % pl->ring_size];
    rp_profile_free(&s->profile);
    pthread_mutex_lock(&pl->lock);
    s->ready = false;
    pl->taken = i + 1;
    pthread_cond_broadcast(&pl->changed);
    pthread_mutex_unlock(&pl->lock);
}

static void pool_finish(struct pool *pl)
{
    pthread_mutex_lock(&pl->lock);
    pl->stop = true;
    pthread_cond_broadcast(&pl->changed);
    pthread_mutex_unlock(&pl->lock);
    for (int i = 0; i < pl->thread_count; i++)
        pthread_join(pl->threads[i], NULL);
    /* files read ahead of a stop */
    for (size_t i = 0; i < pl->ring_size; i++)
        if (pl->ring[i].ready)
            rp_profile_free(&pl->ring[i].profile);
    free(pl->ring);
    pthread_mutex_destroy(&pl->lock);
    pthread_cond_destroy(&pl->changed);
}

/* --- merging, in file order ---------------------------------------------- */

/* A file prepared but not yet merged: with a window back from the newest
 * file's end, files wait until every end is known. */
struct held {
    rp_merge_pending pending;
    const char *path;
};

/* The objects a part (RPERF_INTERVAL) retained are those alive when it
 * was written: of a process recorded in parts only its last part's count,
 * so each process's are held here, the latest part's, and added once
 * every file is read. */
#define RETAINED_MEASURES 2
static const rp_measure retained_measures[RETAINED_MEASURES] = {RP_MEASURE_RETAINED_OBJECTS,
                                                                RP_MEASURE_RETAINED_BYTES};

struct part_retained {
    int64_t pid, end_ns;
    rp_sample *samples[RETAINED_MEASURES];
    size_t counts[RETAINED_MEASURES];
    bool slotted;
    char slot[24];
};

struct loader {
    const rp_load_spec *spec;
    rp_profile *merged;
    size_t committed; /* profiles merged so far */
    bool broken;      /* a merge failed half-way: the merged tables are unusable */
    bool waiting;     /* files are held until the newest end is known */
    int64_t newest_end_ns;
    struct held *held;
    size_t held_count, held_cap;
    struct part_retained *retained; /* one per process recorded in parts */
    size_t retained_count, retained_cap;
};

static void free_part_retained(struct part_retained *r)
{
    for (int k = 0; k < RETAINED_MEASURES; k++)
        free(r->samples[k]);
}

static struct part_retained *retained_of(struct loader *l, int64_t pid)
{
    for (size_t i = 0; i < l->retained_count; i++)
        if (l->retained[i].pid == pid)
            return &l->retained[i];
    if (RP_VEC_RESERVE(l->retained, l->retained_cap, l->retained_count + 1) != 0)
        return NULL;
    struct part_retained *r = &l->retained[l->retained_count++];
    *r = (struct part_retained){.pid = pid, .end_ns = INT64_MIN};
    return r;
}

/* Takes a part's retained samples out of `file`: kept when it is the
 * latest part of its process so far (with its time slot, when slotted),
 * dropped otherwise. Returns 0, or -1 when out of memory. */
static int hold_part_retained(struct loader *l, rp_merge_pending *file, const char *slot)
{
    struct part_retained *r = retained_of(l, file->meta.pid);
    if (!r)
        return -1;
    int64_t end = file->meta.start_time_ns + file->meta.duration_ns;
    bool later = end >= r->end_ns;
    if (later) {
        free_part_retained(r);
        r->end_ns = end;
        r->slotted = slot != NULL;
        snprintf(r->slot, sizeof(r->slot), "%s", slot ? slot : "");
    }
    for (int k = 0; k < RETAINED_MEASURES; k++) {
        rp_measure m = retained_measures[k];
        if (later) {
            r->samples[k] = file->samples[m];
            r->counts[k] = file->counts[m];
        } else {
            free(file->samples[m]);
        }
        file->samples[m] = NULL;
        file->counts[m] = 0;
    }
    return 0;
}

/* Once every file is read: each process's last retained samples. */
static void add_part_retained(struct loader *l)
{
    char err[RP_MERGE_ERROR_MAX];
    for (size_t i = 0; i < l->retained_count; i++) {
        struct part_retained *r = &l->retained[i];
        for (int k = 0; k < RETAINED_MEASURES && !l->broken; k++)
            if (rp_merge_add_measure(l->merged, retained_measures[k], r->samples[k], r->counts[k],
                                     r->slotted ? RP_SLOT_LABEL : NULL, r->slot, err) != 0) {
                rp_error("%s", err);
                l->broken = true;
            }
        free_part_retained(r);
    }
    free(l->retained);
    l->retained = NULL;
    l->retained_count = l->retained_cap = 0;
}

static void say_broken(struct loader *l, const char *path, const char *err)
{
    rp_error("%s: %s", path, err);
    l->broken = true;
}

/* A new time slot; its index as a label value into `slot`. */
static int add_slot(rp_load_facts *f, int64_t start_ns, int64_t duration_ns, char slot[24])
{
    if (RP_VEC_RESERVE(f->slots, f->slots_cap, f->slot_count + 1) != 0)
        return -1;
    snprintf(slot, 24, "%zu", f->slot_count);
    f->slots[f->slot_count++] = (rp_time_slot){start_ns, duration_ns};
    return 0;
}

/* A file's run cut into stretches of time: `count` of `width` ns from
 * `start`, the last cut at `end`. */
typedef struct stretches {
    int64_t start, end, width;
    size_t count;
} stretches;

static stretches stretches_of(const rp_meta *m)
{
    int64_t duration = m->duration_ns > 0 ? m->duration_ns : 1;
    int64_t width = duration / RP_LOAD_TIME_STRETCHES;
    if (width < RP_LOAD_STRETCH_MIN_NS)
        width = RP_LOAD_STRETCH_MIN_NS;
    return (stretches){m->start_time_ns, m->start_time_ns + duration, width, (size_t)((duration + width - 1) / width)};
}

/* The stretch a sample taken at `t` ended in: one without a time (0) or
 * past the end, the last. */
static size_t stretch_of(const stretches *s, int64_t t)
{
    if (t == 0 || t >= s->end)
        return s->count - 1;
    return t <= s->start ? 0 : (size_t)((t - s->start) / s->width);
}

/* A file whose raw samples say when they were taken, with its time slots:
 * a slot per stretch of it that has samples. Everything but its time
 * samples is committed with the first slot. */
static void commit_timed(struct loader *l, rp_merge_pending *file, const char *path)
{
    rp_load_facts *f = &l->merged->load;
    stretches st = stretches_of(&file->meta);
    size_t n = file->counts[RP_MEASURE_TIME];
    /* The samples by stretch (a counting sort): stretch b's are
     * sorted[first[b]] .. sorted[first[b + 1] - 1]. */
    size_t *first = rp_calloc_array(st.count + 1, sizeof(*first));
    size_t *at = rp_alloc_array(st.count, sizeof(*at));
    rp_sample *sorted = rp_alloc_array(n ? n : 1, sizeof(*sorted));
    char err[RP_MERGE_ERROR_MAX] = "out of memory", slot[24];
    int rc = first && at && sorted ? 0 : -1;
    if (rc == 0) {
        for (size_t i = 0; i < n; i++)
            first[stretch_of(&st, file->times[i]) + 1]++;
        for (size_t b = 0; b < st.count; b++)
            first[b + 1] += first[b];
        memcpy(at, first, st.count * sizeof(*at));
        for (size_t i = 0; i < n; i++)
            sorted[at[stretch_of(&st, file->times[i])]++] = file->samples[RP_MEASURE_TIME][i];
    }
    bool committed = false;
    for (size_t b = 0; rc == 0 && b < st.count; b++) {
        if (first[b + 1] == first[b] && (committed || b + 1 < st.count))
            continue; /* an empty stretch; the last one all the same when nothing was committed */
        int64_t from = st.start + (int64_t)b * st.width;
        if ((rc = add_slot(f, from, from + st.width < st.end ? st.width : st.end - from, slot)) != 0)
            break;
        if (!committed) {
            size_t keep = file->counts[RP_MEASURE_TIME];
            file->counts[RP_MEASURE_TIME] = 0; /* the time samples go by stretch, below */
            rc = rp_merge_commit(l->merged, file, l->committed, RP_SLOT_LABEL, slot, err);
            file->counts[RP_MEASURE_TIME] = keep;
            committed = true;
        }
        if (rc == 0)
            rc = rp_merge_add_measure(l->merged, RP_MEASURE_TIME, sorted + first[b], first[b + 1] - first[b],
                                      RP_SLOT_LABEL, slot, err);
    }
    free(first);
    free(at);
    free(sorted);
    if (rc != 0)
        return say_broken(l, path, err);
    f->has_sample_times = true;
    l->committed++;
}

/* Adds a prepared file to the merged profile (with its time slot when
 * asked for). */
static void commit(struct loader *l, rp_merge_pending *file, const char *path)
{
    rp_load_facts *f = &l->merged->load;
    char err[RP_MERGE_ERROR_MAX], slot[24];
    const char *key = NULL;
    if (l->spec->each && l->spec->each(l->merged, file, l->spec->each_ctx) != 0)
        return say_broken(l, path, "out of memory");
    if (l->spec->time_slots) {
        f->has_parts = f->has_parts || file->meta.part > 0;
        if (file->times && file->meta.part == 0)
            return commit_timed(l, file, path);
        if (add_slot(f, file->meta.start_time_ns, file->meta.duration_ns, slot) != 0)
            return say_broken(l, path, "out of memory");
        key = RP_SLOT_LABEL;
    }
    if (file->meta.part > 0 && hold_part_retained(l, file, key ? slot : NULL) != 0)
        return say_broken(l, path, "out of memory");
    if (rp_merge_commit(l->merged, file, l->committed, key, slot, err) != 0)
        return say_broken(l, path, err);
    l->committed++;
}

static bool overlaps(const rp_load_facts *f, const rp_meta *m)
{
    return rp_time_window_overlaps(f->window_from_ns, f->window_to_ns, m->start_time_ns,
                                   m->duration_ns);
}

/* Commits the file now, or holds it until the window is known; out of
 * the window, only counts it. */
static void take(struct loader *l, rp_merge_pending *file, const char *path)
{
    rp_load_facts *f = &l->merged->load;
    if (l->waiting) {
        int64_t end = file->meta.start_time_ns + file->meta.duration_ns;
        if (end > l->newest_end_ns)
            l->newest_end_ns = end;
        if (RP_VEC_RESERVE(l->held, l->held_cap, l->held_count + 1) != 0)
            return say_broken(l, path, "out of memory");
        l->held[l->held_count++] = (struct held){*file, path};
        *file = (rp_merge_pending){.meta.command = NULL};
        return;
    }
    if (f->windowed && !overlaps(f, &file->meta)) {
        f->files_outside++;
        return;
    }
    f->files_kept++;
    commit(l, file, path);
}

/* One file as read: prepared and taken, or reported. */
static void merge_file(struct loader *l, struct slot *s, const struct input *in,
                       bool *named_failed)
{
    if (s->rc != 0) {
        if (in->named) {
            rp_error("%s: %s", in->path, s->err);
            *named_failed = true;
        } else {
            rp_warn("%s: %s; skipped", in->path, s->err);
        }
        return;
    }
    rp_merge_pending file;
    if (rp_merge_prepare(l->merged, &s->profile, l->spec->keep_lines, &file) != 0)
        say_broken(l, in->path, "out of memory");
    else
        take(l, &file, in->path);
    rp_merge_pending_free(&file);
}

/* With a window back from the newest end: every end is known now. */
static void commit_held(struct loader *l)
{
    rp_load_facts *f = &l->merged->load;
    const rp_time_window *w = l->spec->window;
    rp_time_window_resolve(w, l->newest_end_ns, &f->window_from_ns, &f->window_to_ns);
    l->waiting = false;
    for (size_t i = 0; i < l->held_count; i++) {
        if (!l->broken)
            take(l, &l->held[i].pending, l->held[i].path);
        rp_merge_pending_free(&l->held[i].pending);
    }
    free(l->held);
    l->held = NULL;
    l->held_count = l->held_cap = 0;
}

static void begin_window(struct loader *l)
{
    rp_load_facts *f = &l->merged->load;
    const rp_time_window *w = l->spec->window;
    f->windowed = w && rp_time_window_active(w);
    if (!f->windowed)
        return;
    if (rp_time_window_needs_newest(w)) {
        l->waiting = true;
        l->newest_end_ns = INT64_MIN;
    } else {
        rp_time_window_resolve(w, 0, &f->window_from_ns, &f->window_to_ns);
    }
}

static void say_nothing_loaded(const rp_load_facts *f)
{
    char from[32], to[32];
    if (!f->windowed || f->files_outside == 0)
        rp_error("no readable profile in the given paths");
    else
        rp_error("none of the %zu parts overlaps the window %s .. %s", f->files_outside,
                 f->window_from_ns == INT64_MIN ? "(start)" : rp_time_format(f->window_from_ns, from, sizeof(from)),
                 f->window_to_ns == INT64_MAX ? "(end)" : rp_time_format(f->window_to_ns, to, sizeof(to)));
}

/* Reads and merges every input in order. Returns whether a named file
 * failed. */
static bool merge_inputs(struct loader *l, const struct inputs *in)
{
    struct pool pl;
    bool named_failed = false;
    if (pool_start(&pl, in) != 0) {
        rp_error("out of memory");
        l->broken = true;
        return false;
    }
    rp_profile_reader *own = pl.thread_count == 0 ? rp_profile_reader_new() : NULL;
    for (size_t i = 0; i < in->count && !l->broken; i++) {
        merge_file(l, pool_wait(&pl, i, own), &in->items[i], &named_failed);
        pool_release(&pl, i);
    }
    rp_profile_reader_free(own);
    pool_finish(&pl);
    return named_failed;
}

int rp_load_paths(char *const *paths, int count, const rp_load_spec *spec, rp_profile *merged)
{
    struct loader l = {.spec = spec, .merged = merged};
    struct inputs in = {0};
    if (rp_profile_init(merged, true) != 0) {
        rp_error("out of memory");
        return -1;
    }
    begin_window(&l);
    if (list_inputs(&in, paths, count) != 0) {
        free_inputs(&in);
        return -1;
    }
    bool failed = in.failed;
    if (merge_inputs(&l, &in))
        failed = true;
    if (l.waiting)
        commit_held(&l);
    add_part_retained(&l);
    free_inputs(&in);
    if (l.committed == 0 && !failed && !l.broken)
        say_nothing_loaded(&merged->load);
    return l.committed > 0 && !failed && !l.broken ? 0 : -1;
}
