/*
 * profile/merge.c — merging profiles. See merge.h.
 * Linear in the size of `src`: every table is mapped once through the
 * destination's hash tables.
 */
#include "merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/vec.h"

struct id_maps {
    uint32_t *strings, *frames, *stacks, *label_sets;
};

static void free_maps(struct id_maps *m)
{
    free(m->strings);
    free(m->frames);
    free(m->stacks);
    free(m->label_sets);
}

static uint32_t *alloc_map(size_t n)
{
    return rp_alloc_array(n, sizeof(uint32_t));
}

static int map_strings(rp_profile *dst, const rp_profile *src, struct id_maps *m)
{
    if (!(m->strings = alloc_map(src->strings.count)))
        return -1;
    for (size_t i = 0; i < src->strings.count; i++) {
        size_t len;
        const char *s = rp_strtab_get(&src->strings, (uint32_t)i, &len);
        if ((m->strings[i] = rp_profile_string(dst, s, len)) == RP_IDX_NONE)
            return -1;
    }
    return 0;
}

/* Without `keep_lines`, the frames of one method at different lines become
 * one frame (the method's first line stays known). */
static int map_frames(rp_profile *dst, const rp_profile *src, bool keep_lines, struct id_maps *m)
{
    if (!(m->frames = alloc_map(src->frame_count)))
        return -1;
    for (size_t i = 0; i < src->frame_count; i++) {
        const rp_frame *f = &src->frames[i];
        m->frames[i] = rp_profile_line_frame(dst, m->strings[f->path], m->strings[f->label],
                                             keep_lines ? f->line : 0, f->start_line);
        if (m->frames[i] == RP_IDX_NONE)
            return -1;
    }
    return 0;
}

static int map_stacks(rp_profile *dst, const rp_profile *src, struct id_maps *m)
{
    uint32_t *ids = NULL;
    size_t cap = 0;
    if (!(m->stacks = alloc_map(src->stacks.count)))
        return -1;
    for (size_t i = 0; i < src->stacks.count; i++) {
        uint32_t depth;
        const uint32_t *frames = rp_stack_table_get(&src->stacks, (uint32_t)i, &depth);
        if (RP_VEC_RESERVE(ids, cap, depth) != 0) {
            free(ids);
            return -1;
        }
        for (uint32_t d = 0; d < depth; d++)
            ids[d] = m->frames[frames[d]];
        if ((m->stacks[i] = rp_profile_stack(dst, ids, depth)) == RP_IDX_NONE) {
            free(ids);
            return -1;
        }
    }
    free(ids);
    return 0;
}

/* Label set `set` of `from`, in `to`'s strings (a map of from's string ids
 * to to's, or NULL when both are one profile), with `extra` (to's string
 * ids; key RP_IDX_NONE: none) joined. Returns the set id in `to`, or
 * RP_IDX_NONE when out of memory. */
static uint32_t copy_label_set(rp_profile *to, const rp_profile *from, uint32_t set,
                               const uint32_t *strings, rp_label extra, rp_label **pairs,
                               size_t *cap)
{
    const rp_label_set *ls = &from->label_sets[set];
    if (RP_VEC_RESERVE(*pairs, *cap, (size_t)ls->count + 1) != 0)
        return RP_IDX_NONE;
    uint32_t n = 0;
    for (uint32_t k = 0; k < ls->count; k++) {
        const rp_label *l = &from->labels[ls->first + k];
        (*pairs)[n++] = strings ? (rp_label){strings[l->key], strings[l->value]} : *l;
    }
    if (extra.key != RP_IDX_NONE)
        (*pairs)[n++] = extra;
    return rp_profile_label_set(to, *pairs, n);
}

static int map_label_sets(rp_profile *dst, const rp_profile *src, struct id_maps *m)
{
    rp_label *pairs = NULL;
    size_t cap = 0;
    rp_label none = {RP_IDX_NONE, RP_IDX_NONE};
    if (!(m->label_sets = alloc_map(src->label_set_count)))
        return -1;
    for (size_t i = 0; i < src->label_set_count; i++) {
        m->label_sets[i] = copy_label_set(dst, src, (uint32_t)i, m->strings, none, &pairs, &cap);
        if (m->label_sets[i] == RP_IDX_NONE) {
            free(pairs);
            return -1;
        }
    }
    free(pairs);
    return 0;
}

static uint32_t mapped(const struct id_maps *m, uint32_t id)
{
    return id == RP_IDX_NONE ? RP_IDX_NONE : m->strings[id];
}

/* src's facts with dst's string ids. */
static int map_meta(rp_meta *out, const rp_meta *src, const struct id_maps *m)
{
    *out = *src;
    out->rperf_version = mapped(m, src->rperf_version);
    out->ruby_version = mapped(m, src->ruby_version);
    out->cwd = mapped(m, src->cwd);
    out->hostname = mapped(m, src->hostname);
    out->created_at = mapped(m, src->created_at);
    out->git = mapped(m, src->git);
    out->meta_labels = mapped(m, src->meta_labels);
    out->command = rp_alloc_array(src->command_len, sizeof(uint32_t));
    if (!out->command)
        return -1;
    for (size_t i = 0; i < src->command_len; i++)
        out->command[i] = m->strings[src->command[i]];
    return 0;
}

static int map_table(rp_sample **out, size_t *count, const rp_sample_table *table,
                     const struct id_maps *m)
{
    *out = rp_alloc_array(table->count, sizeof(rp_sample));
    if (!*out)
        return -1;
    for (size_t i = 0; i < table->count; i++) {
        rp_sample s = table->samples[i];
        s.stack = m->stacks[s.stack];
        s.label_set = m->label_sets[s.label_set];
        (*out)[i] = s;
    }
    *count = table->count;
    return 0;
}

static int map_samples(rp_merge_pending *out, const rp_profile *src, const struct id_maps *m)
{
    for (int k = 0; k < RP_MEASURES; k++)
        if (map_table(&out->samples[k], &out->counts[k], rp_profile_table_const(src, (rp_measure)k), m) != 0)
            return -1;
    const rp_sample_table *time = rp_profile_table_const(src, RP_MEASURE_TIME);
    if (!time->times || time->count == 0)
        return 0;
    if (!(out->times = rp_alloc_array(time->count, sizeof(*out->times))))
        return -1;
    memcpy(out->times, time->times, time->count * sizeof(*out->times));
    return 0;
}

/* Adds the requests of `src` (names mapped through `names`, NULL: as they
 * are) to `dst`. */
static int add_requests(rp_requests *dst, const rp_requests *src, const uint32_t *names)
{
    rp_add_saturating(&dst->folded_names, src->folded_names);
    for (size_t i = 0; i < src->count; i++) {
        uint32_t name = names ? names[src->endpoints[i].name] : src->endpoints[i].name;
        rp_endpoint *e = rp_requests_endpoint(dst, name);
        if (!e || rp_endpoint_merge(e, &src->endpoints[i]) != 0)
            return -1;
    }
    for (size_t i = 0; i < src->slow_count; i++) {
        rp_slow_span s = src->slow[i];
        s.endpoint = names ? names[s.endpoint] : s.endpoint;
        if (names && s.blocked_at != RP_IDX_NONE)
            s.blocked_at = names[s.blocked_at];
        if (rp_requests_add_slow(dst, &s) != 0)
            return -1;
    }
    return 0;
}

int rp_merge_prepare(rp_profile *dst, const rp_profile *src, bool keep_lines,
                     rp_merge_pending *out)
{
    struct id_maps m = {0};
    *out = (rp_merge_pending){.meta.command = NULL};
    rp_requests_init(&out->requests);
    int rc = map_strings(dst, src, &m) == 0 && map_frames(dst, src, keep_lines, &m) == 0 &&
                     map_stacks(dst, src, &m) == 0 && map_label_sets(dst, src, &m) == 0 &&
                     map_meta(&out->meta, &src->meta, &m) == 0 && map_samples(out, src, &m) == 0 &&
                     add_requests(&out->requests, &src->requests, m.strings) == 0
                 ? 0
                 : -1;
    free_maps(&m);
    return rc;
}

void rp_merge_pending_free(rp_merge_pending *pending)
{
    free(pending->meta.command);
    for (int k = 0; k < RP_MEASURES; k++)
        free(pending->samples[k]);
    free(pending->times);
    rp_requests_free(&pending->requests);
    *pending = (rp_merge_pending){.meta.command = NULL};
}

static int64_t file_end(const rp_meta *m)
{
    return m->start_time_ns + m->duration_ns;
}

/* The process-level counters of a file that ends at `end_ns`: GC, OS,
 * YJIT. */
static void take_counters(rp_meta *dst, const rp_meta *src, int64_t end_ns)
{
    dst->has_gc = src->has_gc;
    dst->gc = src->gc;
    dst->has_os = src->has_os;
    dst->os = src->os;
    dst->has_yjit = src->has_yjit;
    dst->yjit_ratio = src->yjit_ratio;
    dst->counters_end_ns = end_ns;
}

/* Copies the facts that describe one process (the root's). */
static int take_process_facts(rp_meta *dst, const rp_meta *src)
{
    uint32_t *command = reallocarray(dst->command, src->command_len ? src->command_len : 1,
                                     sizeof(uint32_t));
    if (!command)
        return -1;
    memcpy(command, src->command, src->command_len * sizeof(uint32_t));
    dst->command = command;
    dst->command_len = src->command_len;
    dst->mode = src->mode;
    dst->frequency = src->frequency;
    dst->pid = src->pid;
    dst->ppid = src->ppid;
    dst->start_time_ns = src->start_time_ns;
    dst->detected_thread_count = src->detected_thread_count;
    dst->rperf_version = src->rperf_version;
    dst->ruby_version = src->ruby_version;
    dst->cwd = src->cwd;
    dst->hostname = src->hostname;
    dst->created_at = src->created_at;
    dst->git = src->git;
    dst->meta_labels = src->meta_labels;
    take_counters(dst, src, file_end(src));
    return 0;
}

/* Whether `src` is a part (RPERF_INTERVAL) of the process whose facts
 * `dst` carries: its counters belong to the same run. */
static bool is_part_of_root(const rp_meta *dst, const rp_meta *src)
{
    return src->part > 0 && src->pid == dst->pid;
}

/* Counters of another part of the root process, ending at `end_ns`: they
 * only grow, so those of the part that ends last are the whole run's; peak
 * memory is the highest any part saw. */
static void take_later_counters(rp_meta *dst, const rp_meta *src, int64_t end_ns)
{
    int64_t peak = dst->os.maxrss_kb > src->os.maxrss_kb ? dst->os.maxrss_kb : src->os.maxrss_kb;
    if (end_ns > dst->counters_end_ns)
        take_counters(dst, src, end_ns);
    dst->os.maxrss_kb = peak;
}

static int merge_meta(rp_meta *dst, const rp_meta *src, size_t merged_before)
{
    bool src_is_root = merged_before == 0 || src->start_time_ns < dst->start_time_ns;
    int64_t end = file_end(src);
    if (merged_before > 0 && file_end(dst) > end)
        end = file_end(dst);
    if (src_is_root) {
        /* An earlier part of the root read after a later one: the later
         * part's counters stay. */
        rp_meta later = *dst;
        bool keep_later = merged_before > 0 && is_part_of_root(&later, src);
        if (take_process_facts(dst, src) != 0)
            return -1;
        if (keep_later)
            take_later_counters(dst, &later, later.counters_end_ns);
    } else if (is_part_of_root(dst, src)) {
        take_later_counters(dst, src, file_end(src));
    }
    if (merged_before == 0) {
        dst->process_count = 0;
        dst->duration_ns = 0;
        dst->total_duration_ns = 0;
    }
    rp_add_saturating(&dst->trigger_count, src->trigger_count);
    rp_add_saturating(&dst->sampling_count, src->sampling_count);
    rp_add_saturating(&dst->sampling_time_ns, src->sampling_time_ns);
    rp_add_saturating(&dst->worker_cpu_ns, src->worker_cpu_ns);
    rp_add_saturating(&dst->dropped_samples, src->dropped_samples);
    rp_add_saturating(&dst->truncated_samples, src->truncated_samples);
    rp_add_saturating(&dst->alloc_unfollowed, src->alloc_unfollowed);
    rp_add_saturating(&dst->parts_at_interval, src->parts_at_interval);
    rp_add_saturating(&dst->parts_at_full_stacks, src->parts_at_full_stacks);
    if (src->alloc_rate > dst->alloc_rate) /* weights are objects already: the rate is informative */
        dst->alloc_rate = src->alloc_rate;
    if (src->alloc_window_ms > dst->alloc_window_ms) { /* informative too */
        dst->alloc_window_ms = src->alloc_window_ms;
        dst->alloc_window_every_ms = src->alloc_window_every_ms;
    }
    rp_add_saturating(&dst->user_ns, src->user_ns);
    rp_add_saturating(&dst->sys_ns, src->sys_ns);
    /* The parts of one process after its first (RPERF_INTERVAL) are that
     * process again. */
    if (src->part <= 1)
        rp_add_saturating(&dst->process_count, src->process_count);
    rp_add_saturating(&dst->total_duration_ns, src->total_duration_ns);
    /* From the earliest start to the latest end of any file: the parts of a
     * process follow each other. */
    dst->duration_ns = end - dst->start_time_ns;
    return 0;
}

/* The samples' label sets with key=value joined, made when first needed
 * (one per distinct set of the file). */
typedef struct labeller {
    rp_profile *p;
    rp_label extra; /* key RP_IDX_NONE: no label to add */
    uint32_t *made; /* set id → labelled set id, or RP_IDX_NONE */
    size_t count;   /* sets when the commit began */
    rp_label *pairs;
    size_t pairs_cap;
} labeller;

static int labeller_init(labeller *l, rp_profile *p, const char *key, const char *value)
{
    *l = (labeller){.p = p, .extra = {RP_IDX_NONE, RP_IDX_NONE}};
    if (!key)
        return 0;
    l->extra = (rp_label){rp_profile_cstring(p, key), rp_profile_cstring(p, value)};
    l->count = p->label_set_count;
    l->made = alloc_map(l->count);
    if (!l->made || l->extra.key == RP_IDX_NONE || l->extra.value == RP_IDX_NONE)
        return -1;
    memset(l->made, 0xff, l->count * sizeof(uint32_t));
    return 0;
}

static uint32_t labelled(labeller *l, uint32_t set)
{
    if (l->extra.key == RP_IDX_NONE)
        return set;
    if (l->made[set] == RP_IDX_NONE)
        l->made[set] = copy_label_set(l->p, l->p, set, NULL, l->extra, &l->pairs, &l->pairs_cap);
    return l->made[set];
}

static int add_table(rp_sample_table *table, const rp_sample *samples, size_t count, labeller *l, char *err)
{
    for (size_t i = 0; i < count; i++) {
        const rp_sample *s = &samples[i];
        uint32_t set = labelled(l, s->label_set);
        enum rp_sample_add_result r =
            set == RP_IDX_NONE ? RP_SAMPLE_NOMEM
                               : rp_sample_table_add(table, s->stack, s->thread_seq, set, s->weight);
        if (r == RP_SAMPLE_OVERFLOW) {
            snprintf(err, RP_MERGE_ERROR_MAX, "summed sample weight overflows 64 bits");
            return -1;
        }
        if (r != RP_SAMPLE_OK) {
            snprintf(err, RP_MERGE_ERROR_MAX, "out of memory");
            return -1;
        }
    }
    return 0;
}

static int add_samples(rp_profile *dst, const rp_merge_pending *pending, labeller *l, char *err)
{
    for (int k = 0; k < RP_MEASURES; k++)
        if (add_table(rp_profile_table(dst, (rp_measure)k), pending->samples[k], pending->counts[k], l, err) != 0)
            return -1;
    return 0;
}

int rp_merge_commit(rp_profile *dst, const rp_merge_pending *pending, size_t merged_before,
                    const char *key, const char *value, char err[RP_MERGE_ERROR_MAX])
{
    labeller l;
    int rc = -1;
    if (labeller_init(&l, dst, key, value) != 0 || merge_meta(&dst->meta, &pending->meta, merged_before) != 0)
        snprintf(err, RP_MERGE_ERROR_MAX, "out of memory");
    else
        rc = add_samples(dst, pending, &l, err);
    if (rc == 0 && add_requests(&dst->requests, &pending->requests, NULL) != 0) {
        snprintf(err, RP_MERGE_ERROR_MAX, "out of memory");
        rc = -1;
    }
    free(l.made);
    free(l.pairs);
    return rc;
}

int rp_merge_add_measure(rp_profile *dst, rp_measure m, const rp_sample *samples, size_t count,
                         const char *key, const char *value, char err[RP_MERGE_ERROR_MAX])
{
    labeller l;
    int rc = -1;
    if (labeller_init(&l, dst, key, value) != 0)
        snprintf(err, RP_MERGE_ERROR_MAX, "out of memory");
    else
        rc = add_table(rp_profile_table(dst, m), samples, count, &l, err);
    free(l.made);
    free(l.pairs);
    return rc;
}

int rp_merge_into(rp_profile *dst, const rp_profile *src, size_t merged_before, bool keep_lines,
                  char err[RP_MERGE_ERROR_MAX])
{
    rp_merge_pending pending;
    int rc = rp_merge_prepare(dst, src, keep_lines, &pending);
    if (rc != 0)
        snprintf(err, RP_MERGE_ERROR_MAX, "out of memory");
    else
        rc = rp_merge_commit(dst, &pending, merged_before, NULL, NULL, err);
    rp_merge_pending_free(&pending);
    return rc;
}
