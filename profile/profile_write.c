/*
 * profile/profile_write.c — the profile document writer. See profile_write.h.
 */
#include "profile_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/atomic_file.h"
#include "../common/json_writer.h"
#include "../common/numfmt.h"
#include "flatcum.h"
#include "schema.h"

static void write_string_id(rp_json *j, const rp_profile *p, uint32_t id)
{
    size_t len;
    const char *s = rp_strtab_get(&p->strings, id, &len);
    rp_json_string(j, s, len);
}

/* --- meta and summary (the gem 0.11's, first in the document) ------------------------ */

static void member_string_id(rp_json *j, const rp_profile *p, const char *key, uint32_t id)
{
    if (id == RP_IDX_NONE)
        return;
    rp_json_key(j, key);
    write_string_id(j, p, id);
}

/* A number as the gem's summary writes it (Ruby's Float, rounded). */
static void member_ruby_float(rp_json *j, const char *key, double v, int digits)
{
    char text[RP_NUMFMT_MAX];
    rp_json_key(j, key);
    rp_json_raw(j, rp_fmt_ruby_float(v, digits, text));
}

static void write_meta(rp_json *j, const rp_profile *p)
{
    const rp_meta *m = &p->meta;
    rp_json_key(j, RP_KEY_META);
    rp_json_begin_object(j);
    rp_json_member_int(j, "format_version", RP_META_FORMAT_VERSION);
    if (m->created_at != RP_IDX_NONE) {
        member_string_id(j, p, RP_KEY_META_CREATED_AT, m->created_at);
    } else {
        char now[32];
        time_t t = time(NULL);
        struct tm tm;
        strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
        rp_json_member_cstring(j, RP_KEY_META_CREATED_AT, now);
    }
    member_string_id(j, p, RP_KEY_RUBY_VERSION, m->ruby_version);
    rp_json_member_cstring(j, RP_KEY_RPERF_VERSION,
                           m->rperf_version != RP_IDX_NONE ? rp_profile_str(p, m->rperf_version) : RP_VERSION);
    rp_json_member_cstring(j, RP_KEY_MODE, rp_mode_name(m->mode));
    member_string_id(j, p, RP_KEY_META_HOSTNAME, m->hostname);
    if (m->git != RP_IDX_NONE) {
        rp_json_key(j, RP_KEY_META_GIT);
        rp_json_raw(j, rp_profile_str(p, m->git));
    }
    if (m->meta_labels != RP_IDX_NONE) {
        rp_json_key(j, RP_KEY_META_LABELS);
        rp_json_raw(j, rp_profile_str(p, m->meta_labels));
    }
    rp_json_end_object(j);
}

/* The methods of most self time, with their shares, by name. */
static void write_top_methods(rp_json *j, const rp_profile *p)
{
    rp_by_name by;
    size_t count = 0;
    rp_name_weight *sorted = rp_by_name_compute(p, &by) == 0 ? rp_by_name_by_self(&by, &count) : NULL;
    rp_json_key(j, "top_methods");
    rp_json_begin_array(j);
    for (size_t i = 0; sorted && i < count && i < RP_SUMMARY_TOP_METHODS && by.total > 0; i++) {
        rp_json_begin_object(j);
        rp_json_member_cstring(j, "name", sorted[i].name);
        member_ruby_float(j, "self_pct", (double)sorted[i].self * 100.0 / (double)by.total, 1);
        member_ruby_float(j, "total_pct", (double)sorted[i].total * 100.0 / (double)by.total, 1);
        rp_json_end_object(j);
    }
    rp_json_end_array(j);
    free(sorted);
    rp_by_name_free(&by);
}

/* The summary object's members. */
static void write_summary_object(rp_json *j, const rp_profile *p)
{
    const rp_meta *m = &p->meta;
    rp_json_begin_object(j);
    member_ruby_float(j, "total_ms", (double)m->duration_ns / 1e6, 1);
    if (m->user_ns != 0 || m->sys_ns != 0)
        member_ruby_float(j, "cpu_ms", (double)(m->user_ns + m->sys_ns) / 1e6, 1);
    if (m->has_gc) {
        rp_json_member_int(j, "gc_count_minor", m->gc.minor_count);
        rp_json_member_int(j, "gc_count_major", m->gc.major_count);
        member_ruby_float(j, "gc_ms", (double)m->gc.time_ns / 1e6, 1);
        rp_json_member_int(j, "allocated_objects", m->gc.allocated_objects);
        rp_json_member_int(j, "freed_objects", m->gc.freed_objects);
    }
    if (m->has_os)
        rp_json_member_int(j, RP_KEY_GEM_MAXRSS_MB, (m->os.maxrss_kb + 512) / 1024);
    rp_json_member_int(j, "samples", m->sampling_count);
    write_top_methods(j, p);
    rp_json_end_object(j);
}

static void write_summary(rp_json *j, const rp_profile *p)
{
    rp_json_key(j, RP_KEY_SUMMARY);
    if (p->meta.given_summary != RP_IDX_NONE)
        rp_json_raw(j, rp_profile_str(p, p->meta.given_summary));
    else
        write_summary_object(j, p);
}

int rp_profile_write_summary(const rp_profile *p, rp_out *out)
{
    rp_json j;
    rp_json_init(&j, out);
    write_summary_object(&j, p);
    return 0;
}

/* The members of `table` found in `base`; merged-only ones when `merged`. */
static void write_int_fields(rp_json *j, const void *base, rp_int_fields table, bool merged)
{
    for (size_t i = 0; i < table.count; i++)
        if (merged || !table.fields[i].merged_only)
            rp_json_member_int(j, table.fields[i].key,
                               *rp_int_field_at((void *)base, &table.fields[i]));
}

static void write_counters(rp_json *j, const rp_profile *p)
{
    const rp_meta *m = &p->meta;
    rp_json_member_cstring(j, RP_KEY_RPERF_VERSION,
                           m->rperf_version != RP_IDX_NONE ? rp_profile_str(p, m->rperf_version)
                                                           : RP_VERSION);
    rp_json_member_cstring(j, RP_KEY_MODE, rp_mode_name(m->mode));
    write_int_fields(j, m, rp_meta_fields, m->process_count > 1);
    /* informative: readers recount them */
    rp_json_member_int(j, RP_KEY_UNIQUE_FRAMES, (int64_t)p->frame_count);
    rp_json_member_int(j, RP_KEY_UNIQUE_STACKS, (int64_t)p->stacks.count);
}

static void write_int_object(rp_json *j, const char *key, const void *base, rp_int_fields table)
{
    rp_json_key(j, key);
    rp_json_begin_object(j);
    write_int_fields(j, base, table, true);
    rp_json_end_object(j);
}

static void write_process_facts(rp_json *j, const rp_profile *p)
{
    const rp_meta *m = &p->meta;
    rp_json_key(j, RP_KEY_COMMAND);
    rp_json_begin_array(j);
    for (size_t i = 0; i < m->command_len; i++)
        write_string_id(j, p, m->command[i]);
    rp_json_end_array(j);
    if (m->ruby_version != RP_IDX_NONE) {
        rp_json_key(j, RP_KEY_RUBY_VERSION);
        write_string_id(j, p, m->ruby_version);
    }
    if (m->cwd != RP_IDX_NONE) {
        rp_json_key(j, RP_KEY_CWD);
        write_string_id(j, p, m->cwd);
    }
    if (m->has_gc)
        write_int_object(j, RP_KEY_GC, &m->gc, rp_gc_fields);
    if (m->has_yjit) {
        rp_json_key(j, RP_KEY_YJIT_RATIO);
        rp_json_double(j, m->yjit_ratio);
    }
    if (m->has_os)
        write_int_object(j, RP_KEY_OS, &m->os, rp_os_fields);
    if (m->has_gc) {
        rp_gc_stats gem = m->gc;
        gem.time_ns /= 1000000; /* ms */
        write_int_object(j, RP_KEY_GEM_GC_STATS, &gem, rp_gem_gc_fields);
    }
    if (m->has_os)
        rp_json_member_int(j, RP_KEY_GEM_MAXRSS_MB, (m->os.maxrss_kb + 512) / 1024);
}

static void write_frame(rp_json *j, const rp_profile *p, const rp_frame *f)
{
    rp_json_begin_array(j);
    write_string_id(j, p, f->path);
    write_string_id(j, p, f->label);
    if (f->line) {
        rp_json_int(j, f->line);
        if (f->start_line)
            rp_json_int(j, f->start_line);
    }
    rp_json_end_array(j);
}

/* Every frame's JSON text, made once per document: a stack is then its
 * frames' texts copied, not each name escaped again in every sample (a
 * quarter of a large conversion's time). */
typedef struct frame_texts {
    char *pool;    /* the texts one after the other */
    size_t *start; /* frame id → its text's offset; start[count] = the end */
} frame_texts;

static void frame_texts_free(frame_texts *t)
{
    free(t->pool);
    free(t->start);
    *t = (frame_texts){0};
}

/* Returns false (t empty) when out of memory: the frames are then written
 * one by one. */
static bool frame_texts_make(frame_texts *t, const rp_profile *p)
{
    *t = (frame_texts){0};
    size_t len = 0;
    FILE *fp = open_memstream(&t->pool, &len);
    rp_out *out = fp ? rp_out_stream(fp, true) : NULL;
    t->start = calloc(p->frame_count + 1, sizeof(size_t));
    if (!out || !t->start) {
        if (out)
            rp_out_close(out);
        else if (fp)
            fclose(fp);
        frame_texts_free(t);
        return false;
    }
    for (size_t i = 0; i < p->frame_count; i++) {
        rp_json one;
        rp_json_init(&one, out);
        t->start[i] = rp_out_written(out);
        write_frame(&one, p, &p->frames[i]);
    }
    size_t written = t->start[p->frame_count] = rp_out_written(out);
    if (rp_out_close(out) != 0 || len != written) {
        frame_texts_free(t);
        return false;
    }
    return true;
}

static void write_frames(rp_json *j, const rp_profile *p, const frame_texts *texts, uint32_t stack)
{
    uint32_t depth;
    const uint32_t *frames = rp_stack_table_get(&p->stacks, stack, &depth);
    rp_json_begin_array(j);
    for (uint32_t d = 0; d < depth; d++) {
        if (texts->pool)
            rp_json_raw_len(j, texts->pool + texts->start[frames[d]],
                            texts->start[frames[d] + 1] - texts->start[frames[d]]);
        else
            write_frame(j, p, &p->frames[frames[d]]);
    }
    rp_json_end_array(j);
}

/* `table` under `key`: [frames, weight, thread_seq, label_set_id], and
 * with `bytes` (the retained bytes, entry for entry) a fifth element. */
static void write_table(rp_json *j, const rp_profile *p, const frame_texts *texts, const char *key,
                        const rp_sample_table *table, const rp_sample_table *bytes)
{
    rp_json_key(j, key);
    rp_json_begin_array(j);
    for (size_t i = 0; i < table->count; i++) {
        const rp_sample *s = &table->samples[i];
        rp_json_begin_array(j);
        write_frames(j, p, texts, s->stack);
        rp_json_int(j, s->weight);
        rp_json_int(j, s->thread_seq);
        rp_json_int(j, s->label_set);
        if (bytes)
            rp_json_int(j, i < bytes->count ? bytes->samples[i].weight : 0);
        else if (table->times)
            rp_json_int(j, table->times[i]); /* raw: when it was taken */
        rp_json_end_array(j);
    }
    rp_json_end_array(j);
}

static void write_samples(rp_json *j, const rp_profile *p)
{
    const rp_sample_table *time = rp_profile_table_const(p, RP_MEASURE_TIME);
    frame_texts texts;
    frame_texts_make(&texts, p);
    write_table(j, p, &texts, time->aggregate ? RP_KEY_AGGREGATED_SAMPLES : RP_KEY_RAW_SAMPLES, time, NULL);
    if (rp_profile_has_memory(p)) {
        write_table(j, p, &texts, RP_KEY_ALLOC_SAMPLES, rp_profile_table_const(p, RP_MEASURE_ALLOC_OBJECTS), NULL);
        write_table(j, p, &texts, RP_KEY_RETAINED_SAMPLES, rp_profile_table_const(p, RP_MEASURE_RETAINED_OBJECTS),
                    rp_profile_table_const(p, RP_MEASURE_RETAINED_BYTES));
    }
    frame_texts_free(&texts);
}

static void write_split_fields(rp_json *j, const void *base, rp_int_fields table)
{
    for (size_t i = 0; i < table.count; i++)
        rp_json_member_int(j, table.fields[i].key, *rp_int_field_at((void *)base, &table.fields[i]));
}

static void write_endpoint(rp_json *j, const rp_profile *p, const rp_endpoint *e)
{
    rp_json_begin_object(j);
    rp_json_key(j, RP_KEY_REQ_NAME);
    write_string_id(j, p, e->name);
    write_split_fields(j, e, rp_endpoint_fields);
    rp_json_key(j, RP_KEY_REQ_STATUS);
    rp_json_begin_array(j);
    for (int c = 0; c < RP_STATUS_CLASSES; c++)
        rp_json_int(j, e->status[c]);
    rp_json_end_array(j);
    rp_json_key(j, RP_KEY_REQ_HISTOGRAM);
    rp_profile_write_histogram(j, e);
    rp_json_end_object(j);
}

void rp_profile_write_histogram(rp_json *j, const rp_endpoint *e)
{
    rp_json_begin_array(j);
    for (uint32_t i = 0; i < e->hist_len; i++) {
        rp_json_begin_array(j);
        rp_json_int(j, e->hist[i].bucket);
        rp_json_int(j, e->hist[i].count);
        rp_json_end_array(j);
    }
    rp_json_end_array(j);
}

/* Requests and jobs, when the profile has any (requests.h). */
static void write_requests(rp_json *j, const rp_profile *p)
{
    const rp_requests *r = &p->requests;
    if (r->count == 0 && r->slow_count == 0)
        return;
    rp_json_key(j, RP_KEY_REQUESTS);
    rp_json_begin_object(j);
    if (r->folded_names > 0)
        rp_json_member_int(j, RP_KEY_REQ_FOLDED_NAMES, r->folded_names);
    rp_json_key(j, RP_KEY_REQ_ENDPOINTS);
    rp_json_begin_array(j);
    for (size_t i = 0; i < r->count; i++)
        write_endpoint(j, p, &r->endpoints[i]);
    rp_json_end_array(j);
    rp_json_key(j, RP_KEY_REQ_SLOW);
    rp_json_begin_array(j);
    for (size_t i = 0; i < r->slow_count; i++) {
        rp_json_begin_object(j);
        rp_json_key(j, RP_KEY_REQ_ENDPOINT);
        write_string_id(j, p, r->slow[i].endpoint);
        write_split_fields(j, &r->slow[i], rp_slow_span_fields);
        if (r->slow[i].blocked_at != RP_IDX_NONE) {
            rp_json_key(j, RP_KEY_REQ_BLOCKED_AT);
            write_string_id(j, p, r->slow[i].blocked_at);
        }
        rp_json_end_object(j);
    }
    rp_json_end_array(j);
    rp_json_end_object(j);
}

static void write_label_sets(rp_json *j, const rp_profile *p)
{
    rp_json_key(j, RP_KEY_LABEL_SETS);
    rp_json_begin_array(j);
    for (size_t i = 0; i < p->label_set_count; i++) {
        const rp_label_set *ls = &p->label_sets[i];
        rp_json_begin_object(j);
        for (uint32_t k = 0; k < ls->count; k++) {
            const rp_label *l = &p->labels[ls->first + k];
            rp_json_key(j, rp_profile_str(p, l->key));
            write_string_id(j, p, l->value);
        }
        rp_json_end_object(j);
    }
    rp_json_end_array(j);
}

int rp_profile_write_json(const rp_profile *p, rp_out *out)
{
    rp_json j;
    rp_json_init(&j, out);
    rp_json_begin_object(&j);
    write_meta(&j, p);
    write_summary(&j, p);
    write_counters(&j, p);
    write_process_facts(&j, p);
    write_samples(&j, p);
    write_requests(&j, p);
    write_label_sets(&j, p);
    rp_json_end_object(&j);
    rp_out_write(out, "\n", 1);
    return 0;
}

int rp_profile_write_file(const rp_profile *p, const char *path, int level)
{
    return rp_profile_write_file_paced(p, path, level, NULL, NULL);
}

int rp_profile_write_file_paced(const rp_profile *p, const char *path, int level, void (*between)(void *),
                                void *arg)
{
    rp_atomic_file f;
    int err = rp_atomic_file_open(&f, path, RP_FILE_PRIVATE, level);
    if (err)
        return err;
    if (between)
        rp_out_between_chunks(f.out, between, arg);
    rp_profile_write_json(p, f.out);
    return rp_atomic_file_finish(&f, true);
}
