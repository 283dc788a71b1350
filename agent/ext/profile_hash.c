/*
 * agent/ext/profile_hash.c — the gem's Hash of a profile, both ways. See
 * profile_hash.h.
 */
#include "profile_hash.h"

#include <stdlib.h>

#include "../../common/json_flat.h"
#include "../../common/utf8.h"
#include "../../common/vec.h"
#include "../../profile/schema.h"

static VALUE sym(const char *name)
{
    return ID2SYM(rb_intern(name));
}

/* --- profile → Hash -------------------------------------------------------- */

static VALUE string_of(const rp_profile *p, uint32_t id)
{
    size_t len;
    const char *s = rp_strtab_get(&p->strings, id, &len);
    return rb_obj_freeze(rb_utf8_str_new(s, (long)len));
}

/* [path, label] of every frame (with its lines when recorded), frozen,
 * shared by the samples. */
static VALUE frame_arrays(const rp_profile *p)
{
    VALUE frames = rb_ary_new_capa((long)p->frame_count);
    for (size_t i = 0; i < p->frame_count; i++) {
        const rp_frame *f = &p->frames[i];
        VALUE frame = rb_ary_new_from_args(2, string_of(p, f->path), string_of(p, f->label));
        if (f->line) {
            rb_ary_push(frame, UINT2NUM(f->line));
            if (f->start_line)
                rb_ary_push(frame, UINT2NUM(f->start_line));
        }
        rb_ary_push(frames, rb_obj_freeze(frame));
    }
    return frames;
}

static VALUE sample_array(const rp_profile *p, const rp_sample *s, int64_t weight, VALUE frames)
{
    uint32_t depth;
    const uint32_t *ids = rp_stack_table_get(&p->stacks, s->stack, &depth);
    VALUE stack = rb_ary_new_capa(depth);
    for (uint32_t d = 0; d < depth; d++)
        rb_ary_push(stack, rb_ary_entry(frames, ids[d]));
    return rb_ary_new_from_args(4, stack, LL2NUM(weight), UINT2NUM(s->thread_seq),
                                UINT2NUM(s->label_set));
}

/* The samples of `table`; with `bytes` (the retained bytes, entry for
 * entry) each gets a fifth element. */
static VALUE table_of(const rp_profile *p, const rp_sample_table *table, const rp_sample_table *bytes, VALUE frames)
{
    VALUE samples = rb_ary_new_capa((long)table->count);
    for (size_t i = 0; i < table->count; i++) {
        VALUE sample = sample_array(p, &table->samples[i], table->samples[i].weight, frames);
        if (bytes)
            rb_ary_push(sample, LL2NUM(i < bytes->count ? bytes->samples[i].weight : 0));
        rb_ary_push(samples, sample);
    }
    return samples;
}

static VALUE samples_of(const rp_profile *p, VALUE frames)
{
    return table_of(p, &p->samples, NULL, frames);
}

/* Raw samples folded by (stack, thread, label set), in the order each
 * first came: the gem hands out both views of a raw profile. */
static VALUE folded_samples_of(const rp_profile *p, VALUE frames)
{
    rp_sample_table folded;
    rp_sample_table_init(&folded, true);
    for (size_t i = 0; i < p->samples.count; i++) {
        const rp_sample *s = &p->samples.samples[i];
        if (rp_sample_table_add(&folded, s->stack, s->thread_seq, s->label_set, s->weight) == RP_SAMPLE_NOMEM) {
            rp_sample_table_free(&folded);
            rb_raise(rb_eNoMemError, "rperf: out of memory folding raw samples");
        }
    }
    VALUE samples = rb_ary_new_capa((long)folded.count);
    for (size_t i = 0; i < folded.count; i++)
        rb_ary_push(samples, sample_array(p, &folded.samples[i], folded.samples[i].weight, frames));
    rp_sample_table_free(&folded);
    return samples;
}

static VALUE label_sets_of(const rp_profile *p)
{
    VALUE sets = rb_ary_new_capa((long)p->label_set_count);
    for (size_t i = 0; i < p->label_set_count; i++) {
        const rp_label_set *ls = &p->label_sets[i];
        VALUE set = rb_hash_new();
        for (uint32_t j = 0; j < ls->count; j++) {
            const rp_label *l = &p->labels[ls->first + j];
            rb_hash_aset(set, rb_str_intern(string_of(p, l->key)), string_of(p, l->value));
        }
        rb_ary_push(sets, rb_obj_freeze(set));
    }
    return sets;
}

static void set_int(VALUE h, const char *key, int64_t value)
{
    rb_hash_aset(h, sym(key), LL2NUM(value));
}

/* Counters every Hash has, as the gem's always do. */
static const char *const always[] = {
    RP_KEY_FREQUENCY, RP_KEY_TRIGGER_COUNT, RP_KEY_SAMPLING_COUNT, RP_KEY_SAMPLING_TIME_NS,
    RP_KEY_DETECTED_THREADS, RP_KEY_START_TIME_NS, RP_KEY_DURATION_NS, RP_KEY_USER_NS,
    RP_KEY_SYS_NS,
};

static bool is_always(const char *key)
{
    for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++)
        if (strcmp(always[i], key) == 0)
            return true;
    return false;
}

/* Integer members of `table` in `base`: the always-there ones, and the
 * others when they say something. */
static void set_fields(VALUE h, const void *base, rp_int_fields table)
{
    for (size_t i = 0; i < table.count; i++) {
        int64_t v = *rp_int_field_at((void *)base, &table.fields[i]);
        if (v != 0 || is_always(table.fields[i].key))
            set_int(h, table.fields[i].key, v);
    }
}

static VALUE fields_hash(const void *base, rp_int_fields table)
{
    VALUE h = rb_hash_new();
    for (size_t i = 0; i < table.count; i++)
        set_int(h, table.fields[i].key, *rp_int_field_at((void *)base, &table.fields[i]));
    return h;
}

static void set_process_facts(VALUE h, const rp_profile *p)
{
    const rp_meta *m = &p->meta;
    if (m->command_len) {
        VALUE words = rb_ary_new_capa((long)m->command_len);
        for (size_t i = 0; i < m->command_len; i++)
            rb_ary_push(words, string_of(p, m->command[i]));
        rb_hash_aset(h, sym(RP_KEY_COMMAND), words);
    }
    if (m->ruby_version != RP_IDX_NONE)
        rb_hash_aset(h, sym(RP_KEY_RUBY_VERSION), string_of(p, m->ruby_version));
    if (m->has_gc)
        rb_hash_aset(h, sym(RP_KEY_GC), fields_hash(&m->gc, rp_gc_fields));
    if (m->has_os)
        rb_hash_aset(h, sym(RP_KEY_OS), fields_hash(&m->os, rp_os_fields));
    if (m->has_gc) { /* the gem 0.11's names, which its readers use */
        rp_gc_stats gem = m->gc;
        gem.time_ns /= 1000000;
        rb_hash_aset(h, sym(RP_KEY_GEM_GC_STATS), fields_hash(&gem, rp_gem_gc_fields));
    }
    if (m->has_os)
        set_int(h, RP_KEY_GEM_MAXRSS_MB, (m->os.maxrss_kb + 512) / 1024);
    if (m->has_yjit)
        rb_hash_aset(h, sym(RP_KEY_YJIT_RATIO), DBL2NUM(m->yjit_ratio));
}

/* Whether any sample carries labels: the gem leaves :label_sets out when
 * none does. */
static bool has_labels(const rp_profile *p)
{
    for (int m = 0; m < RP_MEASURES; m++) {
        const rp_sample_table *t = rp_profile_table_const(p, (rp_measure)m);
        for (size_t i = 0; i < t->count; i++)
            if (t->samples[i].label_set != 0)
                return true;
    }
    return false;
}

VALUE rp_profile_hash(const rp_profile *p)
{
    const rp_meta *m = &p->meta;
    VALUE h = rb_hash_new();
    rb_hash_aset(h, sym(RP_KEY_MODE), sym(rp_mode_name(m->mode)));
    set_fields(h, m, rp_meta_fields);
    set_int(h, RP_KEY_UNIQUE_FRAMES, (int64_t)p->frame_count);
    set_int(h, RP_KEY_UNIQUE_STACKS, (int64_t)p->stacks.count);
    set_process_facts(h, p);
    VALUE frames = frame_arrays(p);
    if (p->samples.aggregate) {
        rb_hash_aset(h, sym(RP_KEY_AGGREGATED_SAMPLES), samples_of(p, frames));
    } else {
        rb_hash_aset(h, sym(RP_KEY_RAW_SAMPLES), samples_of(p, frames));
        rb_hash_aset(h, sym(RP_KEY_AGGREGATED_SAMPLES), folded_samples_of(p, frames));
    }
    if (rp_profile_has_memory(p)) {
        rb_hash_aset(h, sym(RP_KEY_ALLOC_SAMPLES),
                     table_of(p, rp_profile_table_const(p, RP_MEASURE_ALLOC_OBJECTS), NULL, frames));
        rb_hash_aset(h, sym(RP_KEY_RETAINED_SAMPLES),
                     table_of(p, rp_profile_table_const(p, RP_MEASURE_RETAINED_OBJECTS),
                              rp_profile_table_const(p, RP_MEASURE_RETAINED_BYTES), frames));
    }
    if (has_labels(p))
        rb_hash_aset(h, sym(RP_KEY_LABEL_SETS), label_sets_of(p));
    return h;
}

/* --- Hash → profile -------------------------------------------------------- */

/* data[:key], or data["key"]; Qundef when neither is there. */
static VALUE member(VALUE data, const char *key)
{
    VALUE v = rb_hash_lookup2(data, sym(key), Qundef);
    return v != Qundef ? v : rb_hash_lookup2(data, rb_str_new_cstr(key), Qundef);
}

/* A String (or Symbol) as a profile string, UTF-8 repaired. */
static uint32_t intern(rp_profile *p, VALUE v, const char *what, long index)
{
    if (RB_SYMBOL_P(v))
        v = rb_sym2str(v);
    if (!RB_TYPE_P(v, T_STRING))
        rb_raise(rb_eTypeError, "rperf: sample %ld: %s must be a String, got %" PRIsVALUE, index,
                 what, rb_obj_class(v));
    const char *s = RSTRING_PTR(v);
    size_t len = (size_t)RSTRING_LEN(v);
    uint32_t id;
    if (rp_utf8_valid(s, len)) {
        id = rp_profile_string(p, s, len);
    } else {
        char *fixed = rp_alloc_array(len, 3);
        id = fixed ? rp_profile_string(p, fixed, rp_utf8_repair(s, len, fixed)) : RP_IDX_NONE;
        free(fixed);
    }
    if (id == RP_IDX_NONE)
        rb_raise(rb_eNoMemError, "rperf: out of memory reading the profile");
    return id;
}

static int64_t count_of(VALUE v, const char *key)
{
    if (NIL_P(v) || v == Qundef)
        return 0;
    if (!RB_INTEGER_TYPE_P(v) && !RB_FLOAT_TYPE_P(v))
        rb_raise(rb_eTypeError, "rperf: :%s must be an Integer, got %" PRIsVALUE, key, rb_obj_class(v));
    int64_t n = NUM2LL(v);
    if (n < 0)
        rb_raise(rb_eArgError, "rperf: :%s must not be negative, got %" PRId64, key, n);
    return n;
}

/* A Hash of counters (:gc, :os) into `base`; whether there was one. */
static bool read_fields(VALUE h, void *base, rp_int_fields table)
{
    if (!RB_TYPE_P(h, T_HASH))
        return false;
    for (size_t i = 0; i < table.count; i++)
        *rp_int_field_at(base, &table.fields[i]) = count_of(member(h, table.fields[i].key), table.fields[i].key);
    return true;
}

/* A flat JSON object's text (common/json_flat.h) as the profile's string
 * id, written canonically; RP_IDX_NONE when it is no such object. */
static uint32_t flat_object(rp_profile *p, VALUE text, const char *what)
{
    if (!RB_TYPE_P(text, T_STRING))
        return RP_IDX_NONE;
    char *canonical = NULL, err[RP_JSON_FLAT_ERROR_MAX];
    if (rp_json_flat_canonical(RSTRING_PTR(text), (size_t)RSTRING_LEN(text), &canonical, err) != 0)
        rb_raise(rb_eArgError, "rperf: :meta's %s: %s", what, err);
    uint32_t id = rp_profile_cstring(p, canonical);
    free(canonical);
    return id;
}

/* The meta of a loaded profile (Rperf.load's :meta, which Rperf.save
 * passes as _meta: hostname and created_at, git and labels as JSON text),
 * kept when it is written again; and the :summary the data came with,
 * written as given. */
static void read_loaded_meta(VALUE meta, rp_profile *p)
{
    if (!RB_TYPE_P(meta, T_HASH))
        return;
    rp_meta *m = &p->meta;
    VALUE host = member(meta, RP_KEY_META_HOSTNAME), created = member(meta, RP_KEY_META_CREATED_AT);
    if (RB_TYPE_P(host, T_STRING))
        m->hostname = intern(p, host, "meta hostname", 0);
    if (RB_TYPE_P(created, T_STRING))
        m->created_at = intern(p, created, "meta created_at", 0);
    m->git = flat_object(p, member(meta, RP_KEY_META_GIT), "git");
    m->meta_labels = flat_object(p, member(meta, RP_KEY_META_LABELS), "labels");
    VALUE summary = member(meta, RP_KEY_SUMMARY); /* JSON text, from JSON.generate */
    if (RB_TYPE_P(summary, T_STRING))
        m->given_summary = intern(p, summary, "summary", 0);
}

static void read_meta(VALUE data, rp_profile *p)
{
    rp_meta *m = &p->meta;
    for (size_t i = 0; i < rp_meta_fields.count; i++) {
        const rp_int_field *f = &rp_meta_fields.fields[i];
        *rp_int_field_at(m, f) = count_of(member(data, f->key), f->key);
    }
    VALUE mode = member(data, RP_KEY_MODE);
    if (mode != Qundef && !NIL_P(mode)) {
        VALUE text = RB_SYMBOL_P(mode) ? rb_sym2str(mode) : rb_obj_as_string(mode);
        if (strcmp(StringValueCStr(text), "wall") == 0)
            m->mode = RP_MODE_WALL;
        else if (strcmp(StringValueCStr(text), "cpu") == 0)
            m->mode = RP_MODE_CPU;
        else
            rb_raise(rb_eArgError, "rperf: :mode must be :cpu or :wall, got %" PRIsVALUE, mode);
    }
    if (m->process_count == 0)
        m->process_count = 1;
    if (m->total_duration_ns == 0)
        m->total_duration_ns = m->duration_ns;
    VALUE command = member(data, RP_KEY_COMMAND);
    if (RB_TYPE_P(command, T_ARRAY)) {
        m->command = rp_alloc_array((size_t)RARRAY_LEN(command), sizeof(uint32_t));
        if (!m->command)
            rb_raise(rb_eNoMemError, "rperf: out of memory reading the profile");
        for (long i = 0; i < RARRAY_LEN(command); i++)
            m->command[m->command_len++] = intern(p, rb_obj_as_string(RARRAY_AREF(command, i)), "command", i);
    }
    VALUE version = member(data, RP_KEY_RPERF_VERSION);
    if (RB_TYPE_P(version, T_STRING))
        m->rperf_version = intern(p, version, "rperf_version", 0);
    VALUE ruby = member(data, RP_KEY_RUBY_VERSION);
    if (RB_TYPE_P(ruby, T_STRING))
        m->ruby_version = intern(p, ruby, "ruby_version", 0);
    m->has_gc = read_fields(member(data, RP_KEY_GC), &m->gc, rp_gc_fields);
    if (!m->has_gc && read_fields(member(data, RP_KEY_GEM_GC_STATS), &m->gc, rp_gem_gc_fields)) {
        m->has_gc = true; /* a Hash of the gem's */
        m->gc.time_ns = m->gc.time_ns > INT64_MAX / 1000000 ? INT64_MAX : m->gc.time_ns * 1000000;
    }
    m->has_os = read_fields(member(data, RP_KEY_OS), &m->os, rp_os_fields);
    read_loaded_meta(member(data, "_meta"), p);
    VALUE yjit = member(data, RP_KEY_YJIT_RATIO);
    if (RB_FLOAT_TYPE_P(yjit) || RB_INTEGER_TYPE_P(yjit)) {
        m->has_yjit = true;
        m->yjit_ratio = NUM2DBL(yjit);
    }
}

/* What reading samples allocates, freed however it ends (it may raise). */
typedef struct sample_reading {
    VALUE data;
    rp_profile *p;
    uint32_t *sets; /* label_sets[i] → the profile's set id */
    long set_count;
    rp_label *pairs;
    size_t pairs_cap;
    uint32_t *ids; /* one sample's frame ids */
    size_t ids_cap;
} sample_reading;

static void read_label_sets(sample_reading *r)
{
    VALUE sets = member(r->data, RP_KEY_LABEL_SETS);
    r->set_count = RB_TYPE_P(sets, T_ARRAY) ? RARRAY_LEN(sets) : 0;
    if (!(r->sets = rp_calloc_array((size_t)r->set_count, sizeof(uint32_t))))
        rb_raise(rb_eNoMemError, "rperf: out of memory reading the profile");
    for (long i = 0; i < r->set_count; i++) {
        VALUE set = RARRAY_AREF(sets, i);
        if (!RB_TYPE_P(set, T_HASH))
            continue; /* as the gem's encoders do: no labels */
        VALUE keys = rb_funcall(set, rb_intern("keys"), 0);
        long n = RARRAY_LEN(keys);
        if (RP_VEC_RESERVE(r->pairs, r->pairs_cap, (size_t)n) != 0)
            rb_raise(rb_eNoMemError, "rperf: out of memory reading the profile");
        for (long k = 0; k < n; k++) {
            VALUE key = RARRAY_AREF(keys, k);
            r->pairs[k] = (rp_label){intern(r->p, rb_obj_as_string(key), "label key", i),
                                     intern(r->p, rb_obj_as_string(rb_hash_aref(set, key)), "label value", i)};
        }
        if ((r->sets[i] = rp_profile_label_set(r->p, r->pairs, (uint32_t)n)) == RP_IDX_NONE)
            rb_raise(rb_eNoMemError, "rperf: out of memory reading the profile");
    }
}

static uint32_t read_frame(rp_profile *p, VALUE frame, long si)
{
    if (!RB_TYPE_P(frame, T_ARRAY) || RARRAY_LEN(frame) < 2)
        rb_raise(rb_eArgError, "rperf: sample %ld: each frame must be [path, label]", si);
    uint32_t path = intern(p, RARRAY_AREF(frame, 0), "a frame's path", si);
    uint32_t label = intern(p, RARRAY_AREF(frame, 1), "a frame's label", si);
    VALUE line = RARRAY_LEN(frame) > 2 ? RARRAY_AREF(frame, 2) : Qnil;
    VALUE first = RARRAY_LEN(frame) > 3 ? RARRAY_AREF(frame, 3) : Qnil;
    uint32_t id = rp_profile_line_frame(p, path, label, RB_INTEGER_TYPE_P(line) ? NUM2UINT(line) : 0,
                                        RB_INTEGER_TYPE_P(first) ? NUM2UINT(first) : 0);
    if (id == RP_IDX_NONE)
        rb_raise(rb_eNoMemError, "rperf: out of memory reading the profile");
    return id;
}

static void add_or_raise(rp_sample_table *table, uint32_t stack, uint32_t seq, uint32_t set, int64_t weight, long si)
{
    int rc = stack == RP_IDX_NONE ? RP_SAMPLE_NOMEM : rp_sample_table_add(table, stack, seq, set, weight);
    if (rc == RP_SAMPLE_OVERFLOW)
        rb_raise(rb_eArgError, "rperf: sample %ld: the summed weight overflows 64 bits", si);
    if (rc != RP_SAMPLE_OK)
        rb_raise(rb_eNoMemError, "rperf: out of memory reading the profile");
}

/* A sample of measure `m` (time, allocated or retained objects; a
 * retained one's fifth element is its bytes). */
static void read_sample(sample_reading *r, VALUE s, long si, rp_measure m)
{
    rp_profile *p = r->p;
    if (!RB_TYPE_P(s, T_ARRAY) || RARRAY_LEN(s) < 2 || !RB_TYPE_P(RARRAY_AREF(s, 0), T_ARRAY))
        rb_raise(rb_eArgError, "rperf: sample %ld must be [frames, weight, thread_seq, label_set_id]", si);
    VALUE frames = RARRAY_AREF(s, 0);
    long depth = RARRAY_LEN(frames);
    if (RP_VEC_RESERVE(r->ids, r->ids_cap, (size_t)depth) != 0)
        rb_raise(rb_eNoMemError, "rperf: out of memory reading the profile");
    for (long d = 0; d < depth; d++)
        r->ids[d] = read_frame(p, RARRAY_AREF(frames, d), si);
    VALUE weight = RARRAY_AREF(s, 1);
    if (!RB_INTEGER_TYPE_P(weight) || NUM2LL(weight) < 0)
        rb_raise(rb_eArgError, "rperf: sample %ld: weight must be a non-negative Integer", si);
    VALUE seq = RARRAY_LEN(s) > 2 ? RARRAY_AREF(s, 2) : Qnil;
    VALUE set = RARRAY_LEN(s) > 3 ? RARRAY_AREF(s, 3) : Qnil;
    long set_id = RB_INTEGER_TYPE_P(set) ? NUM2LONG(set) : 0;
    uint32_t stack = rp_profile_stack(p, r->ids, (uint32_t)depth);
    uint32_t thread = RB_INTEGER_TYPE_P(seq) ? NUM2UINT(seq) : 0;
    uint32_t label_set = set_id > 0 && set_id < r->set_count ? r->sets[set_id] : 0;
    add_or_raise(rp_profile_table(p, m), stack, thread, label_set, NUM2LL(weight), si);
    if (m == RP_MEASURE_RETAINED_OBJECTS) {
        VALUE bytes = RARRAY_LEN(s) > 4 ? RARRAY_AREF(s, 4) : Qnil;
        add_or_raise(rp_profile_table(p, RP_MEASURE_RETAINED_BYTES), stack, thread, label_set,
                     RB_INTEGER_TYPE_P(bytes) && NUM2LL(bytes) > 0 ? NUM2LL(bytes) : 0, si);
    }
}

/* The allocation and retained samples, when the data has them. */
static void read_memory_samples(sample_reading *r)
{
    static const struct { const char *key; rp_measure m; } tables[] = {
        {RP_KEY_ALLOC_SAMPLES, RP_MEASURE_ALLOC_OBJECTS},
        {RP_KEY_RETAINED_SAMPLES, RP_MEASURE_RETAINED_OBJECTS},
    };
    for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
        VALUE samples = member(r->data, tables[t].key);
        if (samples == Qundef || NIL_P(samples))
            continue;
        if (!RB_TYPE_P(samples, T_ARRAY))
            rb_raise(rb_eTypeError, "rperf: :%s must be an Array", tables[t].key);
        for (long i = 0; i < RARRAY_LEN(samples); i++)
            read_sample(r, RARRAY_AREF(samples, i), i, tables[t].m);
    }
}

static VALUE read_samples(VALUE arg)
{
    sample_reading *r = (sample_reading *)arg;
    VALUE samples = member(r->data, RP_KEY_AGGREGATED_SAMPLES);
    if (samples == Qundef || NIL_P(samples))
        samples = member(r->data, RP_KEY_RAW_SAMPLES);
    if (samples == Qundef || NIL_P(samples))
        return Qnil;
    if (!RB_TYPE_P(samples, T_ARRAY))
        rb_raise(rb_eTypeError, "rperf: :aggregated_samples must be an Array");
    read_label_sets(r);
    for (long i = 0; i < RARRAY_LEN(samples); i++)
        read_sample(r, RARRAY_AREF(samples, i), i, RP_MEASURE_TIME);
    read_memory_samples(r);
    /* a Hash without counters (made by hand): its samples are the count, as
     * the gem's text report takes them */
    if (member(r->data, RP_KEY_SAMPLING_COUNT) == Qundef)
        r->p->meta.sampling_count = RARRAY_LEN(samples);
    return Qnil;
}

void rp_profile_from_hash(VALUE data, rp_profile *p)
{
    if (rp_profile_init(p, true) != 0)
        rb_raise(rb_eNoMemError, "rperf: out of memory reading the profile");
    if (!RB_TYPE_P(data, T_HASH))
        rb_raise(rb_eTypeError, "rperf: profile data must be a Hash, got %" PRIsVALUE, rb_obj_class(data));
    read_meta(data, p);
    sample_reading r = {.data = data, .p = p};
    int state = 0;
    rb_protect(read_samples, (VALUE)&r, &state);
    free(r.sets);
    free(r.pairs);
    free(r.ids);
    if (state)
        rb_jump_tag(state);
}
