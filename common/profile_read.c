/*
 * common/profile_read.c — the profile reader. See profile_read.h.
 *
 * The document is decompressed into memory and parsed by jansson; then
 * each member is validated and interned into the model. Unknown keys are
 * ignored, as the gem does.
 */
#include "profile_read.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "schema.h"
#include "vec.h"

__attribute__((format(printf, 2, 3))) static int fail(char *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, RP_READ_ERROR_MAX, fmt, ap);
    va_end(ap);
    return -1;
}

/* --- scalar members ------------------------------------------------------ */

/* Reads an optional non-negative integer member; absent means 0. */
static int read_count(json_t *root, const char *key, int64_t *dst, char *err)
{
    json_t *v = json_object_get(root, key);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return fail(err, "\"%s\" must be a non-negative integer", key);
    *dst = json_integer_value(v);
    return 0;
}

static int read_optional_string(rp_profile *p, json_t *root, const char *key, uint32_t *dst,
                                char *err)
{
    json_t *v = json_object_get(root, key);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return fail(err, "\"%s\" must be a string", key);
    *dst = rp_profile_string(p, json_string_value(v), json_string_length(v));
    return *dst == RP_IDX_NONE ? fail(err, "out of memory") : 0;
}

static int read_mode(rp_meta *m, json_t *root, char *err)
{
    json_t *v = json_object_get(root, RP_KEY_MODE);
    if (!v)
        return 0; /* the gem's default */
    const char *s = json_is_string(v) ? json_string_value(v) : "";
    if (strcmp(s, "cpu") == 0)
        m->mode = RP_MODE_CPU;
    else if (strcmp(s, "wall") == 0)
        m->mode = RP_MODE_WALL;
    else
        return fail(err, "\"mode\" must be \"cpu\" or \"wall\"");
    return 0;
}

static int read_command(rp_profile *p, json_t *root, char *err)
{
    json_t *v = json_object_get(root, RP_KEY_COMMAND);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_array(v))
        return fail(err, "\"command\" must be an array of strings");
    size_t n = json_array_size(v);
    uint32_t *words = n ? calloc(n, sizeof(uint32_t)) : NULL;
    if (n && !words)
        return fail(err, "out of memory");
    for (size_t i = 0; i < n; i++) {
        json_t *w = json_array_get(v, i);
        if (!json_is_string(w)) {
            free(words);
            return fail(err, "\"command\" must be an array of strings");
        }
        words[i] = rp_profile_string(p, json_string_value(w), json_string_length(w));
        if (words[i] == RP_IDX_NONE) {
            free(words);
            return fail(err, "out of memory");
        }
    }
    free(p->meta.command);
    p->meta.command = words;
    p->meta.command_len = n;
    return 0;
}

struct count_member {
    const char *key;
    int64_t *dst;
};

static int read_count_members(json_t *obj, const struct count_member *members, size_t n,
                              char *err)
{
    for (size_t i = 0; i < n; i++)
        if (read_count(obj, members[i].key, members[i].dst, err) != 0)
            return -1;
    return 0;
}

/* Reads an optional object of integer members ("gc", "os"). */
static int read_int_object(json_t *root, const char *key, bool *present, void *base,
                           const rp_int_field *fields, size_t count, char *err)
{
    json_t *obj = json_object_get(root, key);
    if (!obj || json_is_null(obj))
        return 0;
    if (!json_is_object(obj))
        return fail(err, "\"%s\" must be an object", key);
    *present = true;
    for (size_t i = 0; i < count; i++)
        if (read_count(obj, fields[i].key, rp_int_field_at(base, &fields[i]), err) != 0)
            return -1;
    return 0;
}

/* The rperf gem writes "gc_stats" (with time in ms) instead of our "gc". */
static int read_gem_gc_stats(rp_meta *m, json_t *root, char *err)
{
    json_t *obj = json_object_get(root, "gc_stats");
    if (m->has_gc || !obj || json_is_null(obj))
        return 0;
    if (!json_is_object(obj))
        return fail(err, "\"gc_stats\" must be an object");
    const struct count_member members[] = {
        {"count", &m->gc.count},
        {"minor_count", &m->gc.minor_count},
        {"major_count", &m->gc.major_count},
        {"time_ms", &m->gc.time_ns},
        {"allocated_objects", &m->gc.allocated_objects},
        {"freed_objects", &m->gc.freed_objects},
    };
    if (read_count_members(obj, members, sizeof(members) / sizeof(members[0]), err) != 0)
        return -1;
    if (__builtin_mul_overflow(m->gc.time_ns, 1000000, &m->gc.time_ns))
        return fail(err, "\"gc_stats\".\"time_ms\" is out of range");
    m->has_gc = true;
    return 0;
}

static int read_yjit(rp_meta *m, json_t *root, char *err)
{
    json_t *v = json_object_get(root, RP_KEY_YJIT_RATIO);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_number(v) || json_number_value(v) < 0 || json_number_value(v) > 1)
        return fail(err, "\"yjit_ratio\" must be a number between 0 and 1");
    m->has_yjit = true;
    m->yjit_ratio = json_number_value(v);
    return 0;
}

static int read_meta(rp_profile *p, json_t *root, char *err)
{
    rp_meta *m = &p->meta;
    const struct count_member counts[] = {
        {RP_KEY_PID, &m->pid},
        {RP_KEY_PPID, &m->ppid},
        {RP_KEY_FREQUENCY, &m->frequency},
        {RP_KEY_TRIGGER_COUNT, &m->trigger_count},
        {RP_KEY_SAMPLING_COUNT, &m->sampling_count},
        {RP_KEY_SAMPLING_TIME_NS, &m->sampling_time_ns},
        {RP_KEY_DETECTED_THREADS, &m->detected_thread_count},
        {RP_KEY_START_TIME_NS, &m->start_time_ns},
        {RP_KEY_DURATION_NS, &m->duration_ns},
        {RP_KEY_USER_NS, &m->user_ns},
        {RP_KEY_SYS_NS, &m->sys_ns},
        {RP_KEY_DROPPED_SAMPLES, &m->dropped_samples},
        {RP_KEY_TRUNCATED_SAMPLES, &m->truncated_samples},
        {RP_KEY_PROCESS_COUNT, &m->process_count},
        {RP_KEY_TOTAL_DURATION_NS, &m->total_duration_ns},
    };
    if (read_mode(m, root, err) != 0 ||
        read_count_members(root, counts, sizeof(counts) / sizeof(counts[0]), err) != 0 ||
        read_optional_string(p, root, RP_KEY_RPERF_VERSION, &m->rperf_version, err) != 0 ||
        read_optional_string(p, root, RP_KEY_RUBY_VERSION, &m->ruby_version, err) != 0 ||
        read_command(p, root, err) != 0 ||
        read_int_object(root, RP_KEY_GC, &m->has_gc, &m->gc, rp_gc_fields, rp_gc_field_count,
                        err) != 0 ||
        read_int_object(root, RP_KEY_OS, &m->has_os, &m->os, rp_os_fields, rp_os_field_count,
                        err) != 0 ||
        read_gem_gc_stats(m, root, err) != 0 || read_yjit(m, root, err) != 0)
        return -1;
    if (m->process_count == 0)
        m->process_count = 1;
    if (m->total_duration_ns == 0)
        m->total_duration_ns = m->duration_ns;
    return 0;
}

/* --- label sets ---------------------------------------------------------- */

/* Label values are strings in our files; the gem may carry numbers or
 * booleans from user labels, which are kept as their JSON text. */
static uint32_t intern_label_value(rp_profile *p, json_t *v)
{
    char buf[64];
    if (json_is_string(v))
        return rp_profile_string(p, json_string_value(v), json_string_length(v));
    if (json_is_integer(v))
        snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, sizeof(buf), "%.17g", json_real_value(v));
    else if (json_is_boolean(v))
        snprintf(buf, sizeof(buf), "%s", json_is_true(v) ? "true" : "false");
    else
        return RP_IDX_NONE - 1; /* not a scalar */
    return rp_profile_cstring(p, buf);
}

/* Fills `map` (file label set id → model id) from the "label_sets" array. */
static int read_label_sets(rp_profile *p, json_t *root, uint32_t **map, size_t *count, char *err)
{
    json_t *sets = json_object_get(root, RP_KEY_LABEL_SETS);
    *map = NULL;
    *count = 0;
    if (!sets || json_is_null(sets))
        return 0;
    if (!json_is_array(sets))
        return fail(err, "\"label_sets\" must be an array of objects");
    size_t n = json_array_size(sets);
    uint32_t *ids = n ? calloc(n, sizeof(uint32_t)) : NULL;
    rp_label *pairs = NULL;
    size_t pairs_cap = 0;
    if (n && !ids)
        return fail(err, "out of memory");
    for (size_t i = 0; i < n; i++) {
        json_t *set = json_array_get(sets, i);
        if (!json_is_object(set)) {
            fail(err, "label set %zu must be an object", i);
            goto error;
        }
        size_t k = 0;
        const char *key;
        json_t *value;
        if (RP_VEC_RESERVE(pairs, pairs_cap, json_object_size(set)) != 0) {
            fail(err, "out of memory");
            goto error;
        }
        json_object_foreach(set, key, value) {
            uint32_t v = intern_label_value(p, value);
            if (v == RP_IDX_NONE - 1) {
                fail(err, "label set %zu: value of \"%s\" must be a string", i, key);
                goto error;
            }
            pairs[k].key = rp_profile_cstring(p, key);
            pairs[k].value = v;
            if (pairs[k].key == RP_IDX_NONE || v == RP_IDX_NONE) {
                fail(err, "out of memory");
                goto error;
            }
            k++;
        }
        ids[i] = rp_profile_label_set(p, pairs, (uint32_t)k);
        if (ids[i] == RP_IDX_NONE) {
            fail(err, "out of memory");
            goto error;
        }
    }
    free(pairs);
    *map = ids;
    *count = n;
    return 0;
error:
    free(pairs);
    free(ids);
    return -1;
}

/* --- samples ------------------------------------------------------------- */

struct sample_reader {
    rp_profile *p;
    const uint32_t *label_map;
    size_t label_map_len;
    uint32_t *frames; /* scratch: frame ids of the sample being read */
    size_t frames_cap;
    char *err;
};

static int read_frame(struct sample_reader *r, json_t *frame, size_t si, size_t fi, uint32_t *id)
{
    json_t *path = json_array_get(frame, 0), *label = json_array_get(frame, 1);
    if (!json_is_array(frame) || json_array_size(frame) < 2 || !json_is_string(path) ||
        !json_is_string(label))
        return fail(r->err, "sample %zu, frame %zu: expected [path, label] strings", si, fi);
    uint32_t p_id = rp_profile_string(r->p, json_string_value(path), json_string_length(path));
    uint32_t l_id = rp_profile_string(r->p, json_string_value(label), json_string_length(label));
    *id = rp_profile_frame(r->p, p_id, l_id);
    return *id == RP_IDX_NONE ? fail(r->err, "out of memory") : 0;
}

/* Optional small non-negative integer at position `pos` of a sample. */
static int read_sample_id(struct sample_reader *r, json_t *sample, size_t pos, size_t si,
                          const char *what, uint32_t *dst)
{
    json_t *v = json_array_get(sample, pos);
    *dst = 0;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) >= RP_IDX_NONE)
        return fail(r->err, "sample %zu: %s must be a non-negative integer", si, what);
    *dst = (uint32_t)json_integer_value(v);
    return 0;
}

static int read_sample(struct sample_reader *r, json_t *sample, size_t si)
{
    if (!json_is_array(sample) || json_array_size(sample) < 2)
        return fail(r->err, "sample %zu: expected [frames, weight, thread_seq, label_set_id]", si);
    json_t *frames = json_array_get(sample, 0), *weight = json_array_get(sample, 1);
    if (!json_is_array(frames))
        return fail(r->err, "sample %zu: frames must be an array", si);
    if (!json_is_integer(weight) || json_integer_value(weight) < 0)
        return fail(r->err, "sample %zu: weight must be a non-negative integer", si);
    uint32_t thread_seq, label_set;
    if (read_sample_id(r, sample, 2, si, "thread_seq", &thread_seq) != 0 ||
        read_sample_id(r, sample, 3, si, "label_set_id", &label_set) != 0)
        return -1;
    if (label_set != 0 && label_set >= r->label_map_len)
        return fail(r->err, "sample %zu: label_set_id %" PRIu32 " is out of range (%zu label sets)",
                    si, label_set, r->label_map_len);

    size_t depth = json_array_size(frames);
    if (depth >= RP_IDX_NONE)
        return fail(r->err, "sample %zu: too many frames", si);
    if (RP_VEC_RESERVE(r->frames, r->frames_cap, depth) != 0)
        return fail(r->err, "out of memory");
    for (size_t fi = 0; fi < depth; fi++)
        if (read_frame(r, json_array_get(frames, fi), si, fi, &r->frames[fi]) != 0)
            return -1;
    uint32_t stack = rp_profile_stack(r->p, r->frames, (uint32_t)depth);
    if (stack == RP_IDX_NONE)
        return fail(r->err, "out of memory");
    uint32_t ls = label_set < r->label_map_len ? r->label_map[label_set] : 0;
    switch (rp_sample_table_add(&r->p->samples, stack, thread_seq, ls, json_integer_value(weight))) {
    case RP_SAMPLE_OK:
        return 0;
    case RP_SAMPLE_OVERFLOW:
        return fail(r->err, "sample %zu: total weight overflows 64 bits", si);
    default:
        return fail(r->err, "out of memory");
    }
}

static int read_samples(rp_profile *p, json_t *root, char *err)
{
    json_t *samples = json_object_get(root, RP_KEY_AGGREGATED_SAMPLES);
    if (!samples || json_is_null(samples))
        samples = json_object_get(root, RP_KEY_RAW_SAMPLES);
    if (!samples || json_is_null(samples))
        return fail(err, "no \"aggregated_samples\" or \"raw_samples\" array: not an rperf profile");
    if (!json_is_array(samples))
        return fail(err, "samples must be an array");

    struct sample_reader r = {.p = p, .err = err};
    size_t label_map_len;
    uint32_t *label_map;
    if (read_label_sets(p, root, &label_map, &label_map_len, err) != 0)
        return -1;
    r.label_map = label_map;
    r.label_map_len = label_map_len;
    int rc = 0;
    for (size_t i = 0; i < json_array_size(samples) && rc == 0; i++)
        rc = read_sample(&r, json_array_get(samples, i), i);
    free(r.frames);
    free(label_map);
    return rc;
}

/* --- documents ---------------------------------------------------------- */

int rp_profile_read_buffer(rp_profile *p, const char *data, size_t len, char err[RP_READ_ERROR_MAX])
{
    json_error_t jerr;
    json_t *root = json_loadb(data, len, 0, &jerr);
    if (!root)
        return fail(err, "not valid JSON (line %d: %s)", jerr.line, jerr.text);
    int rc;
    if (!json_is_object(root))
        rc = fail(err, "top level is not a JSON object: not an rperf profile");
    else
        rc = (read_meta(p, root, err) == 0 && read_samples(p, root, err) == 0) ? 0 : -1;
    json_decref(root);
    return rc;
}

/* zlib prefixes its messages with the file name, which the caller adds. */
static const char *zlib_message(const char *msg, const char *path)
{
    size_t n = strlen(path);
    return strncmp(msg, path, n) == 0 && strncmp(msg + n, ": ", 2) == 0 ? msg + n + 2 : msg;
}

/* Decompresses (or just reads, for plain JSON) the whole file. */
static int slurp(const char *path, char **data, size_t *len, char *err)
{
    gzFile gz = gzopen(path, "rb");
    if (!gz)
        return fail(err, "cannot open: %s", strerror(errno ? errno : ENOMEM));
    gzbuffer(gz, 1 << 17);
    char *buf = NULL;
    size_t used = 0, cap = 0;
    for (;;) {
        if (RP_VEC_RESERVE(buf, cap, used + (1 << 16)) != 0) {
            free(buf);
            gzclose(gz);
            return fail(err, "out of memory");
        }
        int n = gzread(gz, buf + used, 1 << 16);
        if (n < 0) {
            int zerr;
            const char *msg = gzerror(gz, &zerr);
            fail(err, zerr == Z_ERRNO ? "cannot read: %s" : "corrupt gzip data (%s)",
                 zerr == Z_ERRNO ? strerror(errno) : zlib_message(msg, path));
            free(buf);
            gzclose(gz);
            return -1;
        }
        if (n == 0)
            break;
        used += (size_t)n;
        if (used > RP_READ_MAX_BYTES) {
            free(buf);
            gzclose(gz);
            return fail(err, "larger than %zu bytes uncompressed", RP_READ_MAX_BYTES);
        }
    }
    /* zlib reports a stream cut short only through gzerror at the end. */
    int zerr;
    const char *msg = gzerror(gz, &zerr);
    if (zerr != Z_OK) {
        fail(err, "truncated or corrupt gzip data (%s)", zlib_message(msg, path));
        free(buf);
        gzclose(gz);
        return -1;
    }
    gzclose(gz);
    *data = buf;
    *len = used;
    return 0;
}

int rp_profile_read_file(rp_profile *p, const char *path, char err[RP_READ_ERROR_MAX])
{
    char *data = NULL;
    size_t len = 0;
    if (slurp(path, &data, &len, err) != 0)
        return -1;
    int rc;
    if (len == 0)
        rc = fail(err, "empty file");
    else
        rc = rp_profile_read_buffer(p, data, len, err);
    free(data);
    return rc;
}
