/*
 * profile/profile_write.c — the profile document writer. See profile_write.h.
 */
#include "profile_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/atomic_file.h"
#include "../common/json_writer.h"
#include "schema.h"

static void write_string_id(rp_json *j, const rp_profile *p, uint32_t id)
{
    size_t len;
    const char *s = rp_strtab_get(&p->strings, id, &len);
    rp_json_string(j, s, len);
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
}

static void write_frames(rp_json *j, const rp_profile *p, uint32_t stack)
{
    uint32_t depth;
    const uint32_t *frames = rp_stack_table_get(&p->stacks, stack, &depth);
    rp_json_begin_array(j);
    for (uint32_t d = 0; d < depth; d++) {
        const rp_frame *f = &p->frames[frames[d]];
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
    rp_json_end_array(j);
}

/* `table` under `key`: [frames, weight, thread_seq, label_set_id], and
 * with `bytes` (the retained bytes, entry for entry) a fifth element. */
static void write_table(rp_json *j, const rp_profile *p, const char *key, const rp_sample_table *table,
                        const rp_sample_table *bytes)
{
    rp_json_key(j, key);
    rp_json_begin_array(j);
    for (size_t i = 0; i < table->count; i++) {
        const rp_sample *s = &table->samples[i];
        rp_json_begin_array(j);
        write_frames(j, p, s->stack);
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
    write_table(j, p, time->aggregate ? RP_KEY_AGGREGATED_SAMPLES : RP_KEY_RAW_SAMPLES, time, NULL);
    if (!rp_profile_has_memory(p))
        return;
    write_table(j, p, RP_KEY_ALLOC_SAMPLES, rp_profile_table_const(p, RP_MEASURE_ALLOC_OBJECTS), NULL);
    write_table(j, p, RP_KEY_RETAINED_SAMPLES, rp_profile_table_const(p, RP_MEASURE_RETAINED_OBJECTS),
                rp_profile_table_const(p, RP_MEASURE_RETAINED_BYTES));
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
