/*
 * profile/profile.c — the in-memory profile model. See profile.h.
 */
#include "profile.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/hash.h"
#include "schema.h"
#include "../common/vec.h"

#define FIELD_TABLE(array) {array, sizeof(array) / sizeof(array[0])}

static const rp_int_field meta_fields[] = {
    RP_INT_FIELD(RP_KEY_PID, rp_meta, pid),
    RP_INT_FIELD(RP_KEY_PPID, rp_meta, ppid),
    RP_INT_FIELD(RP_KEY_FREQUENCY, rp_meta, frequency),
    RP_INT_FIELD(RP_KEY_TRIGGER_COUNT, rp_meta, trigger_count),
    RP_INT_FIELD(RP_KEY_SAMPLING_COUNT, rp_meta, sampling_count),
    RP_INT_FIELD(RP_KEY_SAMPLING_TIME_NS, rp_meta, sampling_time_ns),
    RP_INT_FIELD(RP_KEY_DETECTED_THREADS, rp_meta, detected_thread_count),
    RP_INT_FIELD(RP_KEY_START_TIME_NS, rp_meta, start_time_ns),
    RP_INT_FIELD(RP_KEY_DURATION_NS, rp_meta, duration_ns),
    RP_INT_FIELD(RP_KEY_USER_NS, rp_meta, user_ns),
    RP_INT_FIELD(RP_KEY_SYS_NS, rp_meta, sys_ns),
    RP_INT_FIELD(RP_KEY_DROPPED_SAMPLES, rp_meta, dropped_samples),
    RP_INT_FIELD(RP_KEY_TRUNCATED_SAMPLES, rp_meta, truncated_samples),
    RP_INT_FIELD(RP_KEY_PART, rp_meta, part),
    RP_INT_FIELD(RP_KEY_PARTS_AT_INTERVAL, rp_meta, parts_at_interval),
    RP_INT_FIELD(RP_KEY_PARTS_AT_FULL_STACKS, rp_meta, parts_at_full_stacks),
    RP_INT_FIELD(RP_KEY_ALLOC_RATE, rp_meta, alloc_rate),
    RP_INT_FIELD(RP_KEY_ALLOC_UNFOLLOWED, rp_meta, alloc_unfollowed),
    RP_INT_FIELD(RP_KEY_ALLOC_WINDOW_MS, rp_meta, alloc_window_ms),
    RP_INT_FIELD(RP_KEY_ALLOC_WINDOW_EVERY_MS, rp_meta, alloc_window_every_ms),
    RP_INT_FIELD(RP_KEY_WORKER_CPU_NS, rp_meta, worker_cpu_ns),
    RP_MERGED_INT_FIELD(RP_KEY_PROCESS_COUNT, rp_meta, process_count),
    RP_MERGED_INT_FIELD(RP_KEY_TOTAL_DURATION_NS, rp_meta, total_duration_ns),
};
const rp_int_fields rp_meta_fields = FIELD_TABLE(meta_fields);

static const rp_int_field gc_fields[] = {
    RP_INT_FIELD(RP_KEY_GC_COUNT, rp_gc_stats, count),
    RP_INT_FIELD(RP_KEY_GC_MINOR, rp_gc_stats, minor_count),
    RP_INT_FIELD(RP_KEY_GC_MAJOR, rp_gc_stats, major_count),
    RP_INT_FIELD(RP_KEY_GC_TIME_NS, rp_gc_stats, time_ns),
    RP_INT_FIELD(RP_KEY_GC_ALLOCATED, rp_gc_stats, allocated_objects),
    RP_INT_FIELD(RP_KEY_GC_FREED, rp_gc_stats, freed_objects),
};
const rp_int_fields rp_gc_fields = FIELD_TABLE(gc_fields);

/* The gem's "gc_stats" (0.9 to 0.11): the same counters, other names,
 * GC time in milliseconds in the time_ns member (callers convert). */
static const rp_int_field gem_gc_fields[] = {
    RP_INT_FIELD("count", rp_gc_stats, count),
    RP_INT_FIELD("minor_count", rp_gc_stats, minor_count),
    RP_INT_FIELD("major_count", rp_gc_stats, major_count),
    RP_INT_FIELD("time_ms", rp_gc_stats, time_ns),
    RP_INT_FIELD("allocated_objects", rp_gc_stats, allocated_objects),
    RP_INT_FIELD("freed_objects", rp_gc_stats, freed_objects),
};
const rp_int_fields rp_gem_gc_fields = FIELD_TABLE(gem_gc_fields);

static const rp_int_field os_fields[] = {
    RP_INT_FIELD(RP_KEY_OS_MAXRSS_KB, rp_os_stats, maxrss_kb),
    RP_INT_FIELD(RP_KEY_OS_MINFLT, rp_os_stats, page_faults_minor),
    RP_INT_FIELD(RP_KEY_OS_MAJFLT, rp_os_stats, page_faults_major),
    RP_INT_FIELD(RP_KEY_OS_NVCSW, rp_os_stats, ctx_voluntary),
    RP_INT_FIELD(RP_KEY_OS_NIVCSW, rp_os_stats, ctx_involuntary),
    RP_INT_FIELD(RP_KEY_OS_IO_READ, rp_os_stats, io_read_bytes),
    RP_INT_FIELD(RP_KEY_OS_IO_WRITE, rp_os_stats, io_write_bytes),
};
const rp_int_fields rp_os_fields = FIELD_TABLE(os_fields);

/* The members of an rp_span_split, at `split` inside `type`: an
 * endpoint's sums and a slow span's own have the same keys. */
#define SPLIT_FIELDS(type, split)                                   \
    RP_INT_FIELD(RP_KEY_REQ_WALL_NS, type, split.wall_ns),          \
    RP_INT_FIELD(RP_KEY_REQ_CPU_NS, type, split.cpu_ns),            \
    RP_INT_FIELD(RP_KEY_REQ_WAIT_NS, type, split.gvl_wait_ns),      \
    RP_INT_FIELD(RP_KEY_REQ_BLOCKED_NS, type, split.blocked_ns),    \
    RP_INT_FIELD(RP_KEY_REQ_GC_NS, type, split.gc_ns),              \
    RP_INT_FIELD(RP_KEY_REQ_QUEUE_NS, type, split.queue_ns)

static const rp_int_field endpoint_fields[] = {
    RP_INT_FIELD(RP_KEY_REQ_COUNT, rp_endpoint, count),
    RP_INT_FIELD(RP_KEY_REQ_MAX_NS, rp_endpoint, max_ns),
    SPLIT_FIELDS(rp_endpoint, sum),
};
const rp_int_fields rp_endpoint_fields = FIELD_TABLE(endpoint_fields);

static const rp_int_field slow_span_fields[] = {
    RP_INT_FIELD(RP_KEY_REQ_START_NS, rp_slow_span, start_ns),
    RP_INT_FIELD(RP_KEY_REQ_STATUS, rp_slow_span, status),
    RP_INT_FIELD(RP_KEY_THREAD_SEQ, rp_slow_span, thread_seq),
    RP_INT_FIELD(RP_KEY_REQ_SPAN, rp_slow_span, span_id),
    SPLIT_FIELDS(rp_slow_span, split),
    RP_INT_FIELD(RP_KEY_REQ_LONGEST_BLOCK_NS, rp_slow_span, longest_block_ns),
};
const rp_int_fields rp_slow_span_fields = FIELD_TABLE(slow_span_fields);

int rp_profile_init(rp_profile *p, bool aggregate)
{
    memset(p, 0, sizeof(*p));
    p->meta.rperf_version = RP_IDX_NONE;
    p->meta.ruby_version = RP_IDX_NONE;
    p->meta.cwd = RP_IDX_NONE;
    p->meta.hostname = p->meta.created_at = p->meta.git = p->meta.meta_labels = RP_IDX_NONE;
    p->meta.given_summary = RP_IDX_NONE;
    p->meta.process_count = 1;
    rp_strtab_init(&p->strings);
    rp_idxset_init(&p->frame_index);
    rp_stack_table_init(&p->stacks);
    rp_sample_table_init(&p->samples, aggregate);
    for (int m = 0; m < RP_MEMORY_MEASURES; m++)
        rp_sample_table_init(&p->memory[m], aggregate);
    rp_idxset_init(&p->label_set_index);
    rp_requests_init(&p->requests);
    /* Label set 0 is always the empty set, as in the gem's files. */
    return rp_profile_label_set(p, NULL, 0) == 0 ? 0 : -1;
}

void rp_profile_free(rp_profile *p)
{
    rp_strtab_free(&p->strings);
    free(p->frames);
    rp_idxset_free(&p->frame_index);
    rp_stack_table_free(&p->stacks);
    rp_sample_table_free(&p->samples);
    for (int m = 0; m < RP_MEMORY_MEASURES; m++)
        rp_sample_table_free(&p->memory[m]);
    free(p->labels);
    free(p->label_sets);
    rp_idxset_free(&p->label_set_index);
    free(p->meta.command);
    free(p->load.slots);
    rp_requests_free(&p->requests);
    memset(p, 0, sizeof(*p));
}

rp_sample_table *rp_profile_table(rp_profile *p, rp_measure m)
{
    /* selecting k swapped `samples` (time) with memory[k - 1] */
    if (m == p->measure)
        return &p->samples;
    if (m == RP_MEASURE_TIME)
        return &p->memory[p->measure - 1];
    return &p->memory[m - 1];
}

const rp_sample_table *rp_profile_table_const(const rp_profile *p, rp_measure m)
{
    return rp_profile_table((rp_profile *)p, m);
}

static void swap_tables(rp_sample_table *a, rp_sample_table *b)
{
    rp_sample_table t = *a;
    *a = *b;
    *b = t;
}

void rp_profile_select(rp_profile *p, rp_measure m)
{
    if (p->measure != RP_MEASURE_TIME)
        swap_tables(&p->samples, &p->memory[p->measure - 1]);
    if (m != RP_MEASURE_TIME)
        swap_tables(&p->samples, &p->memory[m - 1]);
    p->measure = m;
}

bool rp_profile_has_memory(const rp_profile *p)
{
    return p->meta.alloc_rate > 0;
}

bool rp_profile_has_lines(const rp_profile *p)
{
    for (size_t f = 0; f < p->frame_count; f++)
        if (p->frames[f].line > 0)
            return true;
    return false;
}

uint32_t rp_profile_string(rp_profile *p, const char *s, size_t len)
{
    return rp_strtab_intern(&p->strings, s, len);
}

uint32_t rp_profile_cstring(rp_profile *p, const char *s)
{
    return rp_strtab_intern(&p->strings, s, strlen(s));
}

const char *rp_profile_str(const rp_profile *p, uint32_t id)
{
    return rp_strtab_get(&p->strings, id, NULL);
}

uint32_t rp_profile_label_value(const rp_profile *p, uint32_t set, uint32_t key)
{
    const rp_label_set *ls = &p->label_sets[set];
    for (uint32_t i = 0; i < ls->count; i++)
        if (p->labels[ls->first + i].key == key)
            return p->labels[ls->first + i].value;
    return RP_IDX_NONE;
}

rp_label_key rp_label_key_of(const rp_profile *p, const char *name)
{
    if (strcmp(name, RP_LABEL_THREAD_SEQ) == 0)
        return (rp_label_key){.thread_seq = true, .id = RP_IDX_NONE};
    return (rp_label_key){.thread_seq = false, .id = rp_strtab_find(&p->strings, name, strlen(name))};
}

const char *rp_sample_label(const rp_profile *p, rp_label_key key, uint32_t set, uint32_t seq,
                            char buf[RP_LABEL_VALUE_BUF])
{
    if (key.thread_seq) {
        snprintf(buf, RP_LABEL_VALUE_BUF, "%" PRIu32, seq);
        return buf;
    }
    uint32_t value = key.id == RP_IDX_NONE ? RP_IDX_NONE : rp_profile_label_value(p, set, key.id);
    return value == RP_IDX_NONE ? NULL : rp_profile_str(p, value);
}

uint32_t rp_profile_process_of(const rp_profile *p, uint32_t set)
{
    uint32_t key = rp_strtab_find(&p->strings, RP_LABEL_PID, strlen(RP_LABEL_PID));
    return key == RP_IDX_NONE ? RP_IDX_NONE : rp_profile_label_value(p, set, key);
}

const char *rp_frame_name(const rp_profile *p, const rp_frame *f, char *buf, size_t size)
{
    const char *label = rp_profile_str(p, f->label), *path = rp_profile_str(p, f->path);
    if (!*path)
        snprintf(buf, size, "%s", label);
    else if (f->line)
        snprintf(buf, size, "%s (%s:%u)", label, path, f->line);
    else
        snprintf(buf, size, "%s (%s)", label, path);
    return buf;
}

const char *rp_mode_name(rp_mode mode)
{
    return mode == RP_MODE_WALL ? "wall" : "cpu";
}

/* --- frames ---------------------------------------------------------- */

struct frame_key {
    const rp_profile *p;
    rp_frame frame;
};

static bool frame_equals(const void *ctx, uint32_t index)
{
    const struct frame_key *k = ctx;
    const rp_frame *f = &k->p->frames[index];
    return f->path == k->frame.path && f->label == k->frame.label && f->line == k->frame.line;
}

uint32_t rp_profile_frame(rp_profile *p, uint32_t path, uint32_t label)
{
    return rp_profile_line_frame(p, path, label, 0, 0);
}

uint32_t rp_profile_line_frame(rp_profile *p, uint32_t path, uint32_t label, uint32_t line,
                               uint32_t start_line)
{
    if (path == RP_IDX_NONE || label == RP_IDX_NONE)
        return RP_IDX_NONE;
    uint64_t hash = rp_hash_combine(rp_hash_combine(rp_hash_mix64(path), label), line);
    struct frame_key key = {p, {path, label, line, start_line}};
    uint32_t found = rp_idxset_find(&p->frame_index, hash, frame_equals, &key);
    if (found != RP_IDX_NONE) {
        if (p->frames[found].start_line == 0)
            p->frames[found].start_line = start_line;
        return found;
    }
    if (p->frame_count >= RP_IDX_NONE - 1 ||
        RP_VEC_RESERVE(p->frames, p->frames_cap, p->frame_count + 1) != 0)
        return RP_IDX_NONE;
    uint32_t id = (uint32_t)p->frame_count;
    if (rp_idxset_insert(&p->frame_index, hash, id) != 0)
        return RP_IDX_NONE;
    p->frames[id] = key.frame;
    p->frame_count++;
    return id;
}

uint32_t rp_profile_stack(rp_profile *p, const uint32_t *frame_ids, uint32_t depth)
{
    return rp_stack_table_intern(&p->stacks, frame_ids, depth);
}

/* --- label sets -------------------------------------------------------- */

/* A pair with its place in the caller's list, to tell which came last. */
struct ordered_label {
    rp_label label;
    uint32_t place;
};

/* By the key's text, then by place (string ids and texts correspond one
 * to one, so equal keys end up next to each other). */
static int by_key_text_then_place(const void *a, const void *b, void *profile)
{
    const struct ordered_label *x = a, *y = b;
    if (x->label.key != y->label.key)
        return strcmp(rp_profile_str(profile, x->label.key), rp_profile_str(profile, y->label.key));
    return x->place < y->place ? -1 : x->place > y->place;
}

/* A label set is a map: one value per key, the last one given (as JSON
 * objects read), in the order of the keys' text, so that the same set
 * reads, merges and writes the same whatever order its pairs and strings
 * came in. Fills `out` (room for `count`) and returns how many pairs it
 * holds, or -1 when out of memory. */
static int64_t canonical_pairs(const rp_profile *p, const rp_label *pairs, uint32_t count,
                               rp_label *out)
{
    struct ordered_label *ordered = rp_alloc_array(count, sizeof(*ordered));
    if (!ordered)
        return -1;
    for (uint32_t i = 0; i < count; i++)
        ordered[i] = (struct ordered_label){pairs[i], i};
    qsort_r(ordered, count, sizeof(*ordered), by_key_text_then_place, (void *)p);
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++)
        if (i + 1 == count || ordered[i + 1].label.key != ordered[i].label.key)
            out[n++] = ordered[i].label; /* the last of its key */
    free(ordered);
    return n;
}

struct label_set_key {
    const rp_profile *p;
    const rp_label *pairs;
    uint32_t count;
};

static bool label_set_equals(const void *ctx, uint32_t index)
{
    const struct label_set_key *k = ctx;
    const rp_label_set *ls = &k->p->label_sets[index];
    return ls->count == k->count &&
           (k->count == 0 ||
            memcmp(k->p->labels + ls->first, k->pairs, k->count * sizeof(rp_label)) == 0);
}

uint32_t rp_profile_label_set(rp_profile *p, const rp_label *given, uint32_t given_count)
{
    rp_label sorted_small[8];
    rp_label *sorted = given_count <= 8 ? sorted_small : rp_alloc_array(given_count, sizeof(rp_label));
    int64_t canonical = sorted ? canonical_pairs(p, given, given_count, sorted) : -1;
    if (canonical < 0) {
        if (sorted != sorted_small)
            free(sorted);
        return RP_IDX_NONE;
    }
    uint32_t count = (uint32_t)canonical;

    uint32_t id = RP_IDX_NONE;
    uint64_t hash = rp_hash_u32s((const uint32_t *)sorted, count * 2);
    struct label_set_key key = {p, sorted, count};
    uint32_t found = rp_idxset_find(&p->label_set_index, hash, label_set_equals, &key);
    if (found != RP_IDX_NONE) {
        id = found;
    } else if (p->label_set_count < RP_IDX_NONE - 1 &&
               RP_VEC_RESERVE(p->label_sets, p->label_sets_cap, p->label_set_count + 1) == 0 &&
               RP_VEC_RESERVE(p->labels, p->labels_cap, p->label_count + count) == 0 &&
               rp_idxset_insert(&p->label_set_index, hash, (uint32_t)p->label_set_count) == 0) {
        id = (uint32_t)p->label_set_count++;
        if (count > 0)
            memcpy(p->labels + p->label_count, sorted, count * sizeof(rp_label));
        p->label_sets[id] = (rp_label_set){p->label_count, count};
        p->label_count += count;
    }
    if (sorted != sorted_small)
        free(sorted);
    return id;
}
