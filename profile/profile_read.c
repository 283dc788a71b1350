/*
 * profile/profile_read.c — the profile reader. See profile_read.h.
 *
 * Owns decoding the document: the file is decompressed into memory by
 * gzip_file.c (into the reader's buffer) and read with the pull parser of
 * json_reader.c: no tree is built; every value is checked and interned as
 * it is met, unknown keys are skipped (as the gem does). Samples keep the
 * file's label set ids until the document has been read, because
 * "label_sets" may come after the samples. What only the rperf gem's files
 * contain is read by profile_read_gem.c.
 */
#include "profile_read.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/gzip_file.h"
#include "../common/hash.h"
#include "../common/json_flat.h"
#include "profile_read_doc.h"
#include "profile_read_pprof.h"
#include "schema.h"
#include "../common/vec.h"

int rp_doc_fail(char *err, const char *fmt, ...)
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
    d->failure = tok == RP_JT_ERROR ? RP_READ_FAILED_SYNTAX : RP_READ_FAILED_SHAPE;
    if (tok == RP_JT_ERROR) {
        char where[160];
        rp_jr_error(&d->jr, where, sizeof(where));
        return rp_doc_fail(d->err, "not valid JSON (%s)", where);
    }
    return rp_doc_fail(d->err, "%s", message);
}

int rp_doc_key_shape_error(struct doc *d, rp_jtok tok, const char *key, const char *expected)
{
    char message[128];
    snprintf(message, sizeof(message), "\"%s\" must be %s", key, expected);
    return shape_error(d, tok, message);
}

static int out_of_memory(struct doc *d)
{
    d->failure = RP_READ_FAILED_MEMORY;
    return rp_doc_fail(d->err, "out of memory");
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
        return rp_doc_key_shape_error(d, tok, what, "a non-negative integer");
    *dst = v;
    return 0;
}

static int read_string_id(struct doc *d, rp_jtok tok, const char *what, uint32_t *dst)
{
    if (tok == RP_JT_NULL)
        return 0;
    if (tok != RP_JT_STRING)
        return rp_doc_key_shape_error(d, tok, what, "a string");
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

/* --- objects of integers ("gc", "os", the gem's "gc_stats") ------------- */

static const rp_int_field *field_named(const struct doc *d, rp_int_fields table)
{
    for (size_t i = 0; i < table.count; i++)
        if (key_is(d, table.fields[i].key))
            return &table.fields[i];
    return NULL;
}

int rp_doc_shape_error(struct doc *d, rp_jtok tok, const char *message)
{
    return shape_error(d, tok, message);
}

int rp_doc_out_of_memory(struct doc *d)
{
    return out_of_memory(d);
}

int rp_doc_read_count(struct doc *d, rp_jtok tok, const char *what, int64_t *dst)
{
    return read_count(d, tok, what, dst);
}

int rp_doc_read_string(struct doc *d, rp_jtok tok, const char *what, uint32_t *dst)
{
    return read_string_id(d, tok, what, dst);
}

const rp_int_field *rp_doc_field_named(const struct doc *d, rp_int_fields table)
{
    return field_named(d, table);
}

int rp_doc_read_fields(struct doc *d, rp_jtok tok, const char *name, void *base,
                       rp_int_fields table, bool *present)
{
    if (tok == RP_JT_NULL)
        return 0;
    if (tok != RP_JT_BEGIN_OBJECT)
        return rp_doc_key_shape_error(d, tok, name, "an object");
    while ((tok = rp_jr_next(&d->jr)) == RP_JT_KEY) {
        const rp_int_field *f = field_named(d, table);
        tok = rp_jr_next(&d->jr);
        if (f ? read_count(d, tok, f->key, rp_int_field_at(base, f)) != 0 : !rp_jr_skip(&d->jr, tok))
            return f ? -1 : shape_error(d, RP_JT_ERROR, "");
    }
    if (tok != RP_JT_END_OBJECT)
        return shape_error(d, tok, "");
    *present = true;
    return 0;
}

/* --- label sets ------------------------------------------------------------ */

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
        l->value = rp_gem_label_value(d, tok);
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

/* --- meta (the gem 0.11's) ---------------------------------------------------- */

/* A flat object of the meta (git, labels) as its canonical JSON text. */
static int read_flat_object(struct doc *d, rp_jtok tok, const char *what, uint32_t *dst)
{
    if (tok == RP_JT_NULL)
        return 0;
    if (tok != RP_JT_BEGIN_OBJECT)
        return rp_doc_key_shape_error(d, tok, what, "an object");
    char *text = NULL, why[RP_JSON_FLAT_ERROR_MAX];
    if (rp_json_flat_read(&d->jr, &text, why) != 0)
        return rp_doc_fail(d->err, "\"meta\".\"%s\": %s", what, why);
    *dst = rp_profile_cstring(d->p, text);
    free(text);
    return *dst == RP_IDX_NONE ? out_of_memory(d) : 0;
}

/* "meta": where the profile was made (its summary is recomputed, and the
 * versions and mode are the document's own members). */
static int read_meta(struct doc *d, rp_jtok tok)
{
    if (tok != RP_JT_BEGIN_OBJECT)
        return rp_doc_key_shape_error(d, tok, RP_KEY_META, "an object");
    rp_meta *m = &d->p->meta;
    while ((tok = rp_jr_next(&d->jr)) == RP_JT_KEY) {
        char key[32];
        snprintf(key, sizeof(key), "%.*s", (int)(d->jr.str_len < 31 ? d->jr.str_len : 31), d->jr.str);
        tok = rp_jr_next(&d->jr);
        int rc;
        if (strcmp(key, RP_KEY_META_HOSTNAME) == 0)
            rc = read_string_id(d, tok, key, &m->hostname);
        else if (strcmp(key, RP_KEY_META_CREATED_AT) == 0)
            rc = read_string_id(d, tok, key, &m->created_at);
        else if (strcmp(key, RP_KEY_META_GIT) == 0)
            rc = read_flat_object(d, tok, key, &m->git);
        else if (strcmp(key, RP_KEY_META_LABELS) == 0)
            rc = read_flat_object(d, tok, key, &m->meta_labels);
        else
            rc = rp_jr_skip(&d->jr, tok) ? 0 : shape_error(d, RP_JT_ERROR, "");
        if (rc != 0)
            return rc;
    }
    return tok == RP_JT_END_OBJECT ? 0 : shape_error(d, RP_JT_ERROR, "");
}

/* --- the document -------------------------------------------------------- */

static int read_member(struct doc *d)
{
    rp_meta *m = &d->p->meta;
    const rp_int_field *counter = field_named(d, rp_meta_fields);
    char key[64];
    snprintf(key, sizeof(key), "%.*s", (int)(d->jr.str_len < 63 ? d->jr.str_len : 63), d->jr.str);
    rp_jtok tok = rp_jr_next(&d->jr);
    if (counter)
        return read_count(d, tok, key, rp_int_field_at(m, counter));
    if (strcmp(key, RP_KEY_MODE) == 0)
        return read_mode(d, tok);
    if (strcmp(key, RP_KEY_AGGREGATED_SAMPLES) == 0 || strcmp(key, RP_KEY_RAW_SAMPLES) == 0)
        return rp_doc_read_samples(d, tok, key, RP_MEASURE_TIME, &d->have_samples);
    if (strcmp(key, RP_KEY_ALLOC_SAMPLES) == 0)
        return rp_doc_read_samples(d, tok, key, RP_MEASURE_ALLOC_OBJECTS, &d->have_alloc);
    if (strcmp(key, RP_KEY_RETAINED_SAMPLES) == 0)
        return rp_doc_read_samples(d, tok, key, RP_MEASURE_RETAINED_OBJECTS, &d->have_retained);
    if (strcmp(key, RP_KEY_LABEL_SETS) == 0)
        return read_label_sets(d, tok);
    if (strcmp(key, RP_KEY_COMMAND) == 0)
        return read_command(d, tok);
    if (strcmp(key, RP_KEY_RPERF_VERSION) == 0)
        return read_string_id(d, tok, key, &m->rperf_version);
    if (strcmp(key, RP_KEY_RUBY_VERSION) == 0)
        return read_string_id(d, tok, key, &m->ruby_version);
    if (strcmp(key, RP_KEY_CWD) == 0)
        return read_string_id(d, tok, key, &m->cwd);
    if (strcmp(key, RP_KEY_META) == 0)
        return read_meta(d, tok);
    if (strcmp(key, RP_KEY_GC) == 0)
        return rp_doc_read_fields(d, tok, key, &m->gc, rp_gc_fields, &m->has_gc);
    if (strcmp(key, RP_KEY_OS) == 0)
        return rp_doc_read_fields(d, tok, key, &m->os, rp_os_fields, &m->has_os);
    if (strcmp(key, RP_KEY_GEM_GC_STATS) == 0)
        return rp_gem_read_gc_stats(d, tok);
    if (strcmp(key, RP_KEY_REQUESTS) == 0)
        return rp_doc_read_requests(d, tok);
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
        return rp_doc_fail(d->err, "no \"aggregated_samples\" or \"raw_samples\" array: not an rperf profile");
    rp_meta *m = &d->p->meta;
    if (m->process_count == 0)
        m->process_count = 1;
    if (m->total_duration_ns == 0)
        m->total_duration_ns = m->duration_ns;
    /* allocation samples without their rate: their weights are objects
     * already, as if every allocation had been sampled */
    if ((d->have_alloc || d->have_retained) && m->alloc_rate == 0)
        m->alloc_rate = 1;
    return rp_doc_add_samples(d);
}

/* Whether the first byte after any whitespace opens a JSON object. */
static bool starts_like_json(const char *data, size_t len)
{
    size_t i = 0;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
        i++;
    return i < len && data[i] == '{';
}

rp_profile_reader *rp_profile_reader_new(void)
{
    rp_profile_reader *r = calloc(1, sizeof(*r));
    if (r)
        rp_idxset_init(&r->doc.known_index);
    return r;
}

void rp_profile_reader_free(rp_profile_reader *r)
{
    if (!r)
        return;
    struct doc *d = &r->doc;
    rp_jr_free(&d->jr);
    free(d->samples);
    free(d->label_map);
    free(d->frames);
    free(d->pairs);
    free(d->known);
    free(d->known_text);
    rp_idxset_free(&d->known_index);
    free(r->whole);
    free(r);
}

/* A document's outcome: a failure without a kind of its own is one of shape. */
static int note_failure(rp_profile_reader *r, int rc)
{
    r->failure = rc == 0 ? 0 : r->doc.failure ? r->doc.failure : RP_READ_FAILED_SHAPE;
    return rc;
}

rp_read_failure rp_profile_reader_failure(const rp_profile_reader *r, int *errno_out)
{
    if (errno_out)
        *errno_out = r->failure_errno;
    return (rp_read_failure)r->failure;
}

/* The reader's document, emptied for `p`: buffers kept, contents gone. */
static struct doc *begin_document(rp_profile_reader *r, rp_profile *p, char *err)
{
    struct doc *d = &r->doc;
    d->p = p;
    d->err = err;
    d->sample_count = 0;
    d->failure = 0;
    d->have_samples = d->have_alloc = d->have_retained = false;
    d->label_map_len = 0;
    d->known_count = 0;
    d->known_text_len = 0;
    rp_idxset_free(&d->known_index); /* its frames were the last profile's */
    rp_idxset_init(&d->known_index);
    return d;
}

int rp_profile_reader_read_buffer(rp_profile_reader *r, rp_profile *p, const char *data,
                                  size_t len, char err[RP_READ_ERROR_MAX])
{
    /* By content, not by name: pprof files (ours, the gem's) too. */
    r->failure = 0;
    if (!starts_like_json(data, len) && rp_pprof_looks_like(data, len)) {
        int rc = rp_pprof_read(p, data, len, err);
        r->failure = rc ? RP_READ_FAILED_SHAPE : 0;
        return rc;
    }
    struct doc *d = begin_document(r, p, err);
    rp_jr_init(&d->jr, data, len);
    return note_failure(r, read_document(d));
}

/* --- files: JSON streamed, anything else read whole ----------------------- */

/* A file being read, as the JSON reader's source. */
struct source {
    rp_gzip_file gz;
    char err[RP_READ_ERROR_MAX];
    long status;   /* the file's last negative result, or 0 */
    size_t served; /* bytes given so far */
};

static long fill_from_file(void *ctx, char *buf, size_t room)
{
    struct source *s = ctx;
    long n = rp_gzip_file_read(&s->gz, buf, room, s->err, sizeof(s->err));
    if (n < 0)
        s->status = n;
    else
        s->served += (size_t)n;
    return n;
}

/* After a document that does not parse: the rest of the file, so that
 * damage which decompressed into wrong bytes is named as what it is (the
 * gzip checksum at the end says so), not as the syntax it broke. */
static void drain(struct source *s, char *scratch, size_t size)
{
    while (fill_from_file(s, scratch, size) > 0)
        ;
}

/* The start of the content, enough to tell JSON from pprof. */
#define SNIFF_BYTES 64

/* The rest of a file that is not streamed, after its first `have` bytes
 * already in r->whole. Returns the length, or -1 (s->status set). */
static long read_whole(rp_profile_reader *r, struct source *s, size_t have)
{
    for (;;) {
        if (RP_VEC_RESERVE(r->whole, r->whole_cap, have + (1 << 20)) != 0) {
            snprintf(s->err, sizeof(s->err), "out of memory");
            s->status = RP_GZ_ERROR;
            return -1;
        }
        long n = fill_from_file(s, r->whole + have, r->whole_cap - have);
        if (n < 0)
            return -1;
        if (n == 0)
            return (long)have;
        have += (size_t)n;
    }
}

/* The reader's failure for a problem of the file itself. */
static void file_failure(rp_profile_reader *r, const rp_gzip_file *gz)
{
    r->failure = gz->failure == RP_GZ_FAILED_IO     ? RP_READ_FAILED_IO
                 : gz->failure == RP_GZ_FAILED_DATA ? RP_READ_FAILED_GZIP
                                                    : RP_READ_FAILED_SHAPE;
    r->failure_errno = gz->failure_errno;
}

/* One attempt at the file, with igzip or (`zlib`) with zlib. Returns 0,
 * -1 with the message in err, or RP_GZ_ASK_ZLIB. */
static int read_file_once(rp_profile_reader *r, rp_profile *p, const char *path, bool zlib,
                          char *err)
{
    struct source s = {.status = 0};
    r->failure = r->failure_errno = 0;
    if (rp_gzip_file_open(&s.gz, path, RP_READ_MAX_BYTES, zlib, err, RP_READ_ERROR_MAX) != 0) {
        file_failure(r, &s.gz);
        rp_gzip_file_close(&s.gz);
        return -1;
    }
    int rc = 0;
    size_t have = 0;
    while (rc == 0 && have < SNIFF_BYTES && s.status == 0) {
        if (RP_VEC_RESERVE(r->whole, r->whole_cap, SNIFF_BYTES) != 0)
            rc = rp_doc_fail(err, "out of memory");
        long n = rc == 0 ? fill_from_file(&s, r->whole + have, SNIFF_BYTES - have) : 0;
        if (n <= 0)
            break;
        have += (size_t)n;
    }
    if (rc == 0 && s.status == 0 && have == 0) {
        rc = rp_doc_fail(err, "empty file");
        r->failure = RP_READ_FAILED_SYNTAX; /* as JSON.parse("") */
    } else if (rc == 0 && s.status == 0 && starts_like_json(r->whole, have)) {
        struct doc *d = begin_document(r, p, err);
        rc = note_failure(r, rp_jr_init_stream(&d->jr, fill_from_file, &s, r->whole, have) != 0
                                 ? out_of_memory(d)
                                 : read_document(d));
        if (rc != 0 && s.status == 0 && RP_VEC_RESERVE(r->whole, r->whole_cap, 1 << 20) == 0)
            drain(&s, r->whole, r->whole_cap);
    } else if (rc == 0 && s.status == 0) {
        long len = read_whole(r, &s, have);
        rc = len < 0 ? -1 : rp_profile_reader_read_buffer(r, p, r->whole, (size_t)len, err);
    }
    if (s.status == RP_GZ_ASK_ZLIB) {
        rc = RP_GZ_ASK_ZLIB;
    } else if (s.status != 0) {
        rc = rp_doc_fail(err, "%s", s.err); /* the file's problem, not its syntax */
        file_failure(r, &s.gz);
    }
    rp_gzip_file_close(&s.gz);
    return rc;
}

int rp_profile_reader_read_file(rp_profile_reader *r, rp_profile *p, const char *path,
                                char err[RP_READ_ERROR_MAX])
{
    int rc = read_file_once(r, p, path, false, err);
    if (rc != RP_GZ_ASK_ZLIB)
        return rc;
    /* igzip did not take it: zlib reads it again, from the start */
    rp_profile_free(p);
    if (rp_profile_init(p, true) != 0)
        return rp_doc_fail(err, "out of memory");
    return read_file_once(r, p, path, true, err);
}

int rp_profile_read_buffer(rp_profile *p, const char *data, size_t len, char err[RP_READ_ERROR_MAX])
{
    rp_profile_reader *r = rp_profile_reader_new();
    if (!r)
        return rp_doc_fail(err, "out of memory");
    int rc = rp_profile_reader_read_buffer(r, p, data, len, err);
    rp_profile_reader_free(r);
    return rc;
}

int rp_profile_read_file(rp_profile *p, const char *path, char err[RP_READ_ERROR_MAX])
{
    rp_profile_reader *r = rp_profile_reader_new();
    if (!r)
        return rp_doc_fail(err, "out of memory");
    int rc = rp_profile_reader_read_file(r, p, path, err);
    rp_profile_reader_free(r);
    return rc;
}
