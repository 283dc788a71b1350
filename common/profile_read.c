/*
 * common/profile_read.c — the profile reader. See profile_read.h.
 *
 * The document is decompressed into memory (one file at a time) and read
 * with the pull parser of json_reader.c: no tree is built; every value is
 * checked and interned as it is met, unknown keys are skipped (as the gem
 * does). Samples keep the file's label set ids until the document has
 * been read, because "label_sets" may come after the samples.
 */
#include "profile_read.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "json_reader.h"
#include "schema.h"
#include "vec.h"

struct pending_sample {
    uint32_t stack, thread_seq, file_label_set;
    int64_t weight;
};

struct doc {
    rp_profile *p;
    rp_json_reader jr;
    char *err;
    struct pending_sample *samples;
    size_t sample_count, samples_cap;
    bool have_samples;
    uint32_t *label_map; /* file label set id → profile id */
    size_t label_map_len;
    uint32_t *frames;    /* scratch: frame ids of one sample */
    size_t frames_cap;
    rp_label *pairs;     /* scratch: one label set */
    size_t pairs_cap;
};

/* The reader is used by one thread at a time; its scratch buffers (JSON
 * unescaping, decompression) are kept between documents. */
static rp_json_reader shared_reader;

__attribute__((format(printf, 2, 3))) static int fail(char *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, RP_READ_ERROR_MAX, fmt, ap);
    va_end(ap);
    return -1;
}

/* A syntax error of the JSON itself, or `message` for a wrong shape. */
static int shape_error(struct doc *d, rp_jtok tok, const char *message)
{
    if (tok == RP_JT_ERROR) {
        char where[160];
        rp_jr_error(&d->jr, where, sizeof(where));
        return fail(d->err, "not valid JSON (%s)", where);
    }
    return fail(d->err, "%s", message);
}

/* A top-level key whose value has the wrong type: "KEY" must be EXPECTED. */
static int key_shape_error(struct doc *d, rp_jtok tok, const char *key, const char *expected)
{
    char message[128];
    snprintf(message, sizeof(message), "\"%s\" must be %s", key, expected);
    return shape_error(d, tok, message);
}

static int out_of_memory(struct doc *d)
{
    return fail(d->err, "out of memory");
}

static bool key_is(const struct doc *d, const char *key)
{
    size_t n = strlen(key);
    return d->jr.str_len == n && memcmp(d->jr.str, key, n) == 0;
}

/* --- scalars ------------------------------------------------------------- */

/* A non-negative integer (null reads as 0), already started as `tok`. */
static int read_count(struct doc *d, rp_jtok tok, const char *what, int64_t *dst)
{
    int64_t v;
    if (tok == RP_JT_NULL) {
        *dst = 0;
        return 0;
    }
    if (tok != RP_JT_NUMBER || !rp_jr_int(&d->jr, &v) || v < 0)
        return key_shape_error(d, tok, what, "a non-negative integer");
    *dst = v;
    return 0;
}

static int read_string_id(struct doc *d, rp_jtok tok, const char *what, uint32_t *dst)
{
    if (tok == RP_JT_NULL)
        return 0;
    if (tok != RP_JT_STRING)
        return key_shape_error(d, tok, what, "a string");
    *dst = rp_profile_string(d->p, d->jr.str, d->jr.str_len);
    return *dst == RP_IDX_NONE ? out_of_memory(d) : 0;
}

static int read_mode(struct doc *d, rp_jtok tok)
{
    if (tok == RP_JT_STRING && d->jr.str_len == 3 && memcmp(d->jr.str, "cpu", 3) == 0)
        d->p->meta.mode = RP_MODE_CPU;
    else if (tok == RP_JT_STRING && d->jr.str_len == 4 && memcmp(d->jr.str, "wall", 4) == 0)
        d->p->meta.mode = RP_MODE_WALL;
    else
        return shape_error(d, tok, "\"mode\" must be \"cpu\" or \"wall\"");
    return 0;
}

static int read_yjit(struct doc *d, rp_jtok tok)
{
    if (tok == RP_JT_NULL)
        return 0;
    double v = tok == RP_JT_NUMBER ? rp_jr_double(&d->jr) : -1;
    if (!(v >= 0 && v <= 1))
        return shape_error(d, tok, "\"yjit_ratio\" must be a number between 0 and 1");
    d->p->meta.has_yjit = true;
    d->p->meta.yjit_ratio = v;
    return 0;
}

static int read_command(struct doc *d, rp_jtok tok)
{
    static const char *const message = "\"command\" must be an array of strings";
    if (tok == RP_JT_NULL)
        return 0;
    if (tok != RP_JT_BEGIN_ARRAY)
        return shape_error(d, tok, message);
    uint32_t *words = NULL;
    size_t n = 0, cap = 0;
    while ((tok = rp_jr_next(&d->jr)) == RP_JT_STRING) {
        if (RP_VEC_RESERVE(words, cap, n + 1) != 0 ||
            (words[n] = rp_profile_string(d->p, d->jr.str, d->jr.str_len)) == RP_IDX_NONE) {
            free(words);
            return out_of_memory(d);
        }
        n++;
    }
    if (tok != RP_JT_END_ARRAY) {
        free(words);
        return shape_error(d, tok, message);
    }
    free(d->p->meta.command);
    d->p->meta.command = words;
    d->p->meta.command_len = n;
    return 0;
}

/* --- objects of counters ("gc", "os", the gem's "gc_stats") --------------- */

struct count_member {
    const char *key;
    int64_t *dst;
};

static int read_counts_object(struct doc *d, rp_jtok tok, const char *name,
                              const struct count_member *members, size_t count, bool *present)
{
    if (tok == RP_JT_NULL)
        return 0;
    if (tok != RP_JT_BEGIN_OBJECT)
        return key_shape_error(d, tok, name, "an object");
    while ((tok = rp_jr_next(&d->jr)) == RP_JT_KEY) {
        const struct count_member *m = NULL;
        for (size_t i = 0; i < count && !m; i++)
            if (key_is(d, members[i].key))
                m = &members[i];
        tok = rp_jr_next(&d->jr);
        if (m ? read_count(d, tok, m->key, m->dst) != 0 : !rp_jr_skip(&d->jr, tok))
            return m ? -1 : shape_error(d, RP_JT_ERROR, "");
    }
    if (tok != RP_JT_END_OBJECT)
        return shape_error(d, tok, "");
    *present = true;
    return 0;
}

/* "gc" and "os": the members listed in the shared field tables. */
static int read_int_object(struct doc *d, rp_jtok tok, const char *name, void *base,
                           const rp_int_field *fields, size_t count, bool *present)
{
    struct count_member members[16];
    for (size_t i = 0; i < count && i < 16; i++)
        members[i] = (struct count_member){fields[i].key, rp_int_field_at(base, &fields[i])};
    return read_counts_object(d, tok, name, members, count, present);
}

/* The rperf gem writes "gc_stats" (with time in ms) instead of our "gc". */
static int read_gem_gc_stats(struct doc *d, rp_jtok tok)
{
    rp_meta *m = &d->p->meta;
    rp_gc_stats gem = {0};
    const struct count_member members[] = {
        {"count", &gem.count},
        {"minor_count", &gem.minor_count},
        {"major_count", &gem.major_count},
        {"time_ms", &gem.time_ns},
        {"allocated_objects", &gem.allocated_objects},
        {"freed_objects", &gem.freed_objects},
    };
    bool present = false;
    if (read_counts_object(d, tok, "gc_stats", members, sizeof(members) / sizeof(members[0]),
                           &present) != 0)
        return -1;
    if (!present || m->has_gc)
        return 0; /* our own "gc", when there, wins */
    if (__builtin_mul_overflow(gem.time_ns, 1000000, &gem.time_ns))
        return fail(d->err, "\"gc_stats\".\"time_ms\" is out of range");
    m->gc = gem;
    m->has_gc = true;
    return 0;
}

/* --- label sets ------------------------------------------------------------ */

/* Label values are strings in our files; the gem may carry numbers or
 * booleans from user labels, which are kept as their JSON text. */
static uint32_t intern_label_value(struct doc *d, rp_jtok tok)
{
    switch (tok) {
    case RP_JT_STRING:
        return rp_profile_string(d->p, d->jr.str, d->jr.str_len);
    case RP_JT_NUMBER:
        return rp_profile_string(d->p, d->jr.num, d->jr.num_len);
    case RP_JT_TRUE:
        return rp_profile_cstring(d->p, "true");
    case RP_JT_FALSE:
        return rp_profile_cstring(d->p, "false");
    default:
        return RP_IDX_NONE - 1; /* not a scalar */
    }
}

static int read_label_set(struct doc *d, rp_jtok tok, size_t index)
{
    char message[160];
    if (tok != RP_JT_BEGIN_OBJECT) {
        snprintf(message, sizeof(message), "label set %zu must be an object", index);
        return shape_error(d, tok, message);
    }
    uint32_t count = 0;
    while ((tok = rp_jr_next(&d->jr)) == RP_JT_KEY) {
        if (RP_VEC_RESERVE(d->pairs, d->pairs_cap, count + 1) != 0)
            return out_of_memory(d);
        rp_label *l = &d->pairs[count];
        l->key = rp_profile_string(d->p, d->jr.str, d->jr.str_len);
        snprintf(message, sizeof(message), "label set %zu: value of \"%.*s\" must be a string",
                 index, (int)(d->jr.str_len < 64 ? d->jr.str_len : 64), d->jr.str);
        tok = rp_jr_next(&d->jr);
        l->value = intern_label_value(d, tok);
        if (l->value == RP_IDX_NONE - 1)
            return shape_error(d, tok, message);
        if (l->key == RP_IDX_NONE || l->value == RP_IDX_NONE)
            return out_of_memory(d);
        count++;
    }
    if (tok != RP_JT_END_OBJECT)
        return shape_error(d, tok, "");
    uint32_t id = rp_profile_label_set(d->p, d->pairs, count);
    if (id == RP_IDX_NONE || RP_VEC_RESERVE(d->label_map, d->label_map_len, index + 1) != 0)
        return out_of_memory(d);
    d->label_map[index] = id;
    return 0;
}

static int read_label_sets(struct doc *d, rp_jtok tok)
{
    if (tok == RP_JT_NULL)
        return 0;
    if (tok != RP_JT_BEGIN_ARRAY)
        return shape_error(d, tok, "\"label_sets\" must be an array of objects");
    size_t index = 0;
    /* label_map_len doubles as the map's capacity until the end */
    free(d->label_map);
    d->label_map = NULL;
    d->label_map_len = 0;
    size_t cap = 0;
    while ((tok = rp_jr_next(&d->jr)) != RP_JT_END_ARRAY) {
        d->label_map_len = cap;
        if (read_label_set(d, tok, index) != 0)
            return -1;
        cap = d->label_map_len;
        index++;
    }
    d->label_map_len = index;
    return 0;
}

/* --- samples ------------------------------------------------------------- */

static int frame_error(struct doc *d, rp_jtok tok, size_t si, size_t fi)
{
    char message[128];
    snprintf(message, sizeof(message),
             "sample %zu, frame %zu: expected [path, label] strings, then optionally the line "
             "and the method's first line",
             si, fi);
    return shape_error(d, tok, message);
}

/* The optional line numbers after path and label: a non-negative integer
 * that fits 32 bits, or the end of the frame. Returns 1 when one was read
 * into *line, 0 at the end of the frame, -1 on a bad element. */
static int read_frame_line(struct doc *d, rp_jtok *tok, uint32_t *line)
{
    *tok = rp_jr_next(&d->jr);
    if (*tok == RP_JT_END_ARRAY)
        return 0;
    int64_t v;
    if (*tok != RP_JT_NUMBER || !rp_jr_int(&d->jr, &v) || v < 0 || v > UINT32_MAX)
        return -1;
    *line = (uint32_t)v;
    return 1;
}

/* [path, label], [path, label, line] or [path, label, line, first_line]
 * (see the format in README); further elements are allowed and ignored. */
static int read_frame(struct doc *d, rp_jtok tok, size_t si, size_t fi, uint32_t *id)
{
    if (tok != RP_JT_BEGIN_ARRAY || (tok = rp_jr_next(&d->jr)) != RP_JT_STRING)
        return frame_error(d, tok, si, fi);
    uint32_t path = rp_profile_string(d->p, d->jr.str, d->jr.str_len);
    if ((tok = rp_jr_next(&d->jr)) != RP_JT_STRING)
        return frame_error(d, tok, si, fi);
    uint32_t label = rp_profile_string(d->p, d->jr.str, d->jr.str_len);
    uint32_t line = 0, start_line = 0;
    int more = read_frame_line(d, &tok, &line);
    if (more > 0)
        more = read_frame_line(d, &tok, &start_line);
    if (more < 0)
        return frame_error(d, tok, si, fi);
    if (more > 0)
        while ((tok = rp_jr_next(&d->jr)) != RP_JT_END_ARRAY)
            if (!rp_jr_skip(&d->jr, tok))
                return frame_error(d, RP_JT_ERROR, si, fi);
    *id = rp_profile_line_frame(d->p, path, label, line, start_line);
    return *id == RP_IDX_NONE ? out_of_memory(d) : 0;
}

static int read_frames(struct doc *d, rp_jtok tok, size_t si, uint32_t *depth)
{
    char message[64];
    snprintf(message, sizeof(message), "sample %zu: frames must be an array", si);
    if (tok != RP_JT_BEGIN_ARRAY)
        return shape_error(d, tok, message);
    uint32_t n = 0;
    while ((tok = rp_jr_next(&d->jr)) != RP_JT_END_ARRAY) {
        if (n >= RP_IDX_NONE - 1 || RP_VEC_RESERVE(d->frames, d->frames_cap, (size_t)n + 1) != 0)
            return out_of_memory(d);
        if (read_frame(d, tok, si, n, &d->frames[n]) != 0)
            return -1;
        n++;
    }
    *depth = n;
    return 0;
}

/* thread_seq or label_set_id: a small non-negative integer or null. */
static int read_sample_id(struct doc *d, rp_jtok tok, size_t si, const char *what, uint32_t *dst)
{
    int64_t v;
    *dst = 0;
    if (tok == RP_JT_NULL)
        return 0;
    if (tok != RP_JT_NUMBER || !rp_jr_int(&d->jr, &v) || v < 0 || v >= RP_IDX_NONE) {
        char message[96];
        snprintf(message, sizeof(message), "sample %zu: %s must be a non-negative integer", si, what);
        return shape_error(d, tok, message);
    }
    *dst = (uint32_t)v;
    return 0;
}

static int read_sample(struct doc *d, rp_jtok tok, size_t si)
{
    char message[96];
    snprintf(message, sizeof(message), "sample %zu: expected [frames, weight, thread_seq, label_set_id]", si);
    if (tok != RP_JT_BEGIN_ARRAY)
        return shape_error(d, tok, message);
    uint32_t depth = 0;
    struct pending_sample s = {0};
    if ((tok = rp_jr_next(&d->jr)) == RP_JT_END_ARRAY)
        return shape_error(d, tok, message);
    if (read_frames(d, tok, si, &depth) != 0)
        return -1;
    tok = rp_jr_next(&d->jr);
    if (tok == RP_JT_END_ARRAY)
        return shape_error(d, tok, message);
    if (tok != RP_JT_NUMBER || !rp_jr_int(&d->jr, &s.weight) || s.weight < 0) {
        snprintf(message, sizeof(message), "sample %zu: weight must be a non-negative integer", si);
        return shape_error(d, tok, message);
    }
    /* optional thread_seq and label_set_id; anything after is ignored */
    if ((tok = rp_jr_next(&d->jr)) != RP_JT_END_ARRAY) {
        if (read_sample_id(d, tok, si, "thread_seq", &s.thread_seq) != 0)
            return -1;
        if ((tok = rp_jr_next(&d->jr)) != RP_JT_END_ARRAY) {
            if (read_sample_id(d, tok, si, "label_set_id", &s.file_label_set) != 0)
                return -1;
            while ((tok = rp_jr_next(&d->jr)) != RP_JT_END_ARRAY)
                if (!rp_jr_skip(&d->jr, tok))
                    return shape_error(d, RP_JT_ERROR, "");
        }
    }
    s.stack = rp_profile_stack(d->p, d->frames, depth);
    if (s.stack == RP_IDX_NONE || RP_VEC_RESERVE(d->samples, d->samples_cap, d->sample_count + 1) != 0)
        return out_of_memory(d);
    d->samples[d->sample_count++] = s;
    return 0;
}

static int read_samples(struct doc *d, rp_jtok tok)
{
    if (tok == RP_JT_NULL)
        return 0;
    if (d->have_samples) /* both aggregated_samples and raw_samples: the first wins */
        return rp_jr_skip(&d->jr, tok) ? 0 : shape_error(d, RP_JT_ERROR, "");
    if (tok != RP_JT_BEGIN_ARRAY)
        return shape_error(d, tok, "samples must be an array");
    size_t si = 0;
    while ((tok = rp_jr_next(&d->jr)) != RP_JT_END_ARRAY)
        if (read_sample(d, tok, si++) != 0)
            return -1;
    d->have_samples = true;
    return 0;
}

/* With the whole document read: label ids checked and mapped, samples in. */
static int add_samples(struct doc *d)
{
    for (size_t i = 0; i < d->sample_count; i++) {
        const struct pending_sample *s = &d->samples[i];
        if (s->file_label_set != 0 && s->file_label_set >= d->label_map_len)
            return fail(d->err, "sample %zu: label_set_id %" PRIu32 " is out of range (%zu label sets)",
                        i, s->file_label_set, d->label_map_len);
        uint32_t ls = s->file_label_set < d->label_map_len ? d->label_map[s->file_label_set] : 0;
        switch (rp_sample_table_add(&d->p->samples, s->stack, s->thread_seq, ls, s->weight)) {
        case RP_SAMPLE_OK:
            break;
        case RP_SAMPLE_OVERFLOW:
            return fail(d->err, "sample %zu: total weight overflows 64 bits", i);
        default:
            return out_of_memory(d);
        }
    }
    return 0;
}

/* --- the document -------------------------------------------------------- */

/* Top-level integer members. */
static int64_t *count_member(rp_meta *m, const struct doc *d)
{
    static const struct {
        const char *key;
        size_t offset;
    } members[] = {
        {RP_KEY_PID, offsetof(rp_meta, pid)},
        {RP_KEY_PPID, offsetof(rp_meta, ppid)},
        {RP_KEY_FREQUENCY, offsetof(rp_meta, frequency)},
        {RP_KEY_TRIGGER_COUNT, offsetof(rp_meta, trigger_count)},
        {RP_KEY_SAMPLING_COUNT, offsetof(rp_meta, sampling_count)},
        {RP_KEY_SAMPLING_TIME_NS, offsetof(rp_meta, sampling_time_ns)},
        {RP_KEY_DETECTED_THREADS, offsetof(rp_meta, detected_thread_count)},
        {RP_KEY_START_TIME_NS, offsetof(rp_meta, start_time_ns)},
        {RP_KEY_DURATION_NS, offsetof(rp_meta, duration_ns)},
        {RP_KEY_USER_NS, offsetof(rp_meta, user_ns)},
        {RP_KEY_SYS_NS, offsetof(rp_meta, sys_ns)},
        {RP_KEY_DROPPED_SAMPLES, offsetof(rp_meta, dropped_samples)},
        {RP_KEY_TRUNCATED_SAMPLES, offsetof(rp_meta, truncated_samples)},
        {RP_KEY_PROCESS_COUNT, offsetof(rp_meta, process_count)},
        {RP_KEY_TOTAL_DURATION_NS, offsetof(rp_meta, total_duration_ns)},
    };
    for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++)
        if (key_is(d, members[i].key))
            return (int64_t *)((char *)m + members[i].offset);
    return NULL;
}

static int read_member(struct doc *d)
{
    rp_meta *m = &d->p->meta;
    int64_t *count = count_member(m, d);
    char key[64];
    snprintf(key, sizeof(key), "%.*s", (int)(d->jr.str_len < 63 ? d->jr.str_len : 63), d->jr.str);
    rp_jtok tok = rp_jr_next(&d->jr);
    if (count)
        return read_count(d, tok, key, count);
    if (strcmp(key, RP_KEY_MODE) == 0)
        return read_mode(d, tok);
    if (strcmp(key, RP_KEY_AGGREGATED_SAMPLES) == 0 || strcmp(key, RP_KEY_RAW_SAMPLES) == 0)
        return read_samples(d, tok);
    if (strcmp(key, RP_KEY_LABEL_SETS) == 0)
        return read_label_sets(d, tok);
    if (strcmp(key, RP_KEY_COMMAND) == 0)
        return read_command(d, tok);
    if (strcmp(key, RP_KEY_RPERF_VERSION) == 0)
        return read_string_id(d, tok, key, &m->rperf_version);
    if (strcmp(key, RP_KEY_RUBY_VERSION) == 0)
        return read_string_id(d, tok, key, &m->ruby_version);
    if (strcmp(key, RP_KEY_GC) == 0)
        return read_int_object(d, tok, key, &m->gc, rp_gc_fields, rp_gc_field_count, &m->has_gc);
    if (strcmp(key, RP_KEY_OS) == 0)
        return read_int_object(d, tok, key, &m->os, rp_os_fields, rp_os_field_count, &m->has_os);
    if (strcmp(key, "gc_stats") == 0)
        return read_gem_gc_stats(d, tok);
    if (strcmp(key, RP_KEY_YJIT_RATIO) == 0)
        return read_yjit(d, tok);
    return rp_jr_skip(&d->jr, tok) ? 0 : shape_error(d, RP_JT_ERROR, "");
}

static int read_document(struct doc *d)
{
    rp_jtok tok = rp_jr_next(&d->jr);
    if (tok != RP_JT_BEGIN_OBJECT) {
        /* a syntax error first, then a wrong shape */
        if (tok != RP_JT_ERROR && (!rp_jr_skip(&d->jr, tok) || rp_jr_next(&d->jr) == RP_JT_ERROR))
            tok = RP_JT_ERROR;
        return shape_error(d, tok, "top level is not a JSON object: not an rperf profile");
    }
    while ((tok = rp_jr_next(&d->jr)) == RP_JT_KEY)
        if (read_member(d) != 0)
            return -1;
    if (tok != RP_JT_END_OBJECT || (tok = rp_jr_next(&d->jr)) != RP_JT_END)
        return shape_error(d, RP_JT_ERROR, "");
    if (!d->have_samples)
        return fail(d->err, "no \"aggregated_samples\" or \"raw_samples\" array: not an rperf profile");
    rp_meta *m = &d->p->meta;
    if (m->process_count == 0)
        m->process_count = 1;
    if (m->total_duration_ns == 0)
        m->total_duration_ns = m->duration_ns;
    return add_samples(d);
}

int rp_profile_read_buffer(rp_profile *p, const char *data, size_t len, char err[RP_READ_ERROR_MAX])
{
    struct doc d = {.p = p, .err = err};
    d.jr = shared_reader;
    rp_jr_init(&d.jr, data, len);
    int rc = read_document(&d);
    shared_reader = d.jr; /* keeps the scratch buffer */
    free(d.samples);
    free(d.label_map);
    free(d.frames);
    free(d.pairs);
    return rc;
}

/* --- files ---------------------------------------------------------------- */

/* zlib prefixes its messages with the file name, which the caller adds. */
static const char *zlib_message(const char *msg, const char *path)
{
    size_t n = strlen(path);
    return strncmp(msg, path, n) == 0 && strncmp(msg + n, ": ", 2) == 0 ? msg + n + 2 : msg;
}

/* The decompressed document; the buffer is reused from file to file. */
static char *document;
static size_t document_cap;

/* Decompresses (or just reads, for plain JSON) the whole file. */
static int slurp(const char *path, size_t *len, char *err)
{
    errno = 0;
    gzFile gz = gzopen(path, "rb");
    if (!gz)
        return fail(err, "cannot open: %s", strerror(errno ? errno : ENOMEM));
    gzbuffer(gz, 1 << 17);
    size_t used = 0;
    int rc = 0;
    for (;;) {
        if (RP_VEC_RESERVE(document, document_cap, used + (1 << 20)) != 0) {
            rc = fail(err, "out of memory");
            break;
        }
        size_t room = document_cap - used;
        int n = gzread(gz, document + used, (unsigned)(room < (1u << 30) ? room : (1u << 30)));
        if (n < 0) {
            int zerr;
            const char *msg = gzerror(gz, &zerr);
            rc = fail(err, zerr == Z_ERRNO ? "cannot read: %s" : "corrupt gzip data (%s)",
                      zerr == Z_ERRNO ? strerror(errno) : zlib_message(msg, path));
            break;
        }
        if (n == 0)
            break;
        used += (size_t)n;
        if (used > RP_READ_MAX_BYTES) {
            rc = fail(err, "larger than %zu bytes uncompressed", RP_READ_MAX_BYTES);
            break;
        }
    }
    if (rc == 0) {
        /* zlib reports a stream cut short only through gzerror at the end. */
        int zerr;
        const char *msg = gzerror(gz, &zerr);
        if (zerr != Z_OK)
            rc = fail(err, "truncated or corrupt gzip data (%s)", zlib_message(msg, path));
    }
    gzclose(gz);
    *len = used;
    return rc;
}

int rp_profile_read_file(rp_profile *p, const char *path, char err[RP_READ_ERROR_MAX])
{
    size_t len = 0;
    if (slurp(path, &len, err) != 0)
        return -1;
    if (len == 0)
        return fail(err, "empty file");
    return rp_profile_read_buffer(p, document, len, err);
}
