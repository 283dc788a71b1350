/*
 * profile/profile_read_samples.c — the sample arrays of a profile
 * document, inside the reader: each sample's frames (a frame read before
 * is known by its bytes), weight, thread, label set, a retained sample's
 * bytes and a raw sample's time; and, once the document is read, the
 * samples into the profile's tables. See profile_read_doc.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/hash.h"
#include "../common/vec.h"
#include "profile_read_doc.h"
#include "schema.h"

static int frame_error(struct doc *d, rp_jtok tok, size_t si, size_t fi)
{
    char message[128];
    snprintf(message, sizeof(message),
             "sample %zu, frame %zu: expected [path, label] strings, then optionally the line "
             "and the method's first line",
             si, fi);
    return rp_doc_shape_error(d, tok, message);
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
 * (see docs/file-format.md); further elements are allowed and ignored. */
static int parse_frame(struct doc *d, rp_jtok tok, size_t si, size_t fi, uint32_t *id)
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
    return *id == RP_IDX_NONE ? rp_doc_out_of_memory(d) : 0;
}

struct text_key {
    const struct doc *d;
    const char *text;
    size_t len;
};

static bool known_equals(const void *ctx, uint32_t index)
{
    const struct text_key *k = ctx;
    const struct known_frame *f = &k->d->known[index];
    return f->len == k->len && memcmp(k->d->known_text + f->offset, k->text, k->len) == 0;
}

/* Keeps a copy of the text of a frame about to be parsed; returns its
 * offset, or SIZE_MAX when out of memory (which only costs the speed-up). */
static size_t keep_frame_text(struct doc *d, const char *text, size_t len)
{
    if (RP_VEC_RESERVE(d->known_text, d->known_text_cap, d->known_text_len + len) != 0)
        return SIZE_MAX;
    if (len) /* an empty frame "[]" with nothing kept yet: no buffer to copy into */
        memcpy(d->known_text + d->known_text_len, text, len);
    d->known_text_len += len;
    return d->known_text_len - len;
}

/* Remembers that the text kept at `offset` reads as frame `id`. */
static void remember_frame(struct doc *d, size_t offset, size_t len, uint64_t hash, uint32_t id)
{
    if (offset == SIZE_MAX || d->known_count >= RP_IDX_NONE - 1 ||
        RP_VEC_RESERVE(d->known, d->known_cap, d->known_count + 1) != 0 ||
        rp_idxset_insert(&d->known_index, hash, (uint32_t)d->known_count) != 0)
        return;
    d->known[d->known_count++] = (struct known_frame){offset, len, id};
}

/* A frame: known by its bytes when they were seen before, else parsed. */
static int read_frame(struct doc *d, rp_jtok tok, size_t si, size_t fi, uint32_t *id)
{
    size_t len = 0;
    const char *text = tok == RP_JT_BEGIN_ARRAY ? rp_jr_peek_flat_array(&d->jr, &len) : NULL;
    if (!text)
        return parse_frame(d, tok, si, fi, id);
    uint64_t hash = rp_hash_bytes(text, len);
    struct text_key key = {d, text, len};
    uint32_t known = rp_idxset_find(&d->known_index, hash, known_equals, &key);
    if (known != RP_IDX_NONE) {
        rp_jr_skip_flat_array(&d->jr, len);
        *id = d->known[known].frame;
        return 0;
    }
    /* parsing may move a streamed window: the text is copied first */
    size_t offset = keep_frame_text(d, text, len);
    if (parse_frame(d, tok, si, fi, id) != 0)
        return -1;
    remember_frame(d, offset, len, hash, *id);
    return 0;
}

static int read_frames(struct doc *d, rp_jtok tok, size_t si, uint32_t *depth)
{
    char message[64];
    snprintf(message, sizeof(message), "sample %zu: frames must be an array", si);
    if (tok != RP_JT_BEGIN_ARRAY)
        return rp_doc_shape_error(d, tok, message);
    uint32_t n = 0;
    while ((tok = rp_jr_next(&d->jr)) != RP_JT_END_ARRAY) {
        if (n >= RP_IDX_NONE - 1 || RP_VEC_RESERVE(d->frames, d->frames_cap, (size_t)n + 1) != 0)
            return rp_doc_out_of_memory(d);
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
        return rp_doc_shape_error(d, tok, message);
    }
    *dst = (uint32_t)v;
    return 0;
}

/* The elements after the frames and the weight: optional thread_seq and
 * label_set_id, and for retained samples their bytes; anything after is
 * ignored. */
static int read_sample_tail(struct doc *d, size_t si, struct pending_sample *s)
{
    rp_jtok tok;
    if ((tok = rp_jr_next(&d->jr)) == RP_JT_END_ARRAY)
        return 0;
    if (read_sample_id(d, tok, si, "thread_seq", &s->thread_seq) != 0)
        return -1;
    if ((tok = rp_jr_next(&d->jr)) == RP_JT_END_ARRAY)
        return 0;
    if (read_sample_id(d, tok, si, "label_set_id", &s->file_label_set) != 0)
        return -1;
    if ((tok = rp_jr_next(&d->jr)) == RP_JT_END_ARRAY)
        return 0;
    if (s->measure == RP_MEASURE_RETAINED_OBJECTS) {
        if (tok != RP_JT_NUMBER || !rp_jr_int(&d->jr, &s->bytes) || s->bytes < 0) {
            char message[96];
            snprintf(message, sizeof(message), "retained sample %zu: bytes must be a non-negative integer", si);
            return rp_doc_shape_error(d, tok, message);
        }
        tok = rp_jr_next(&d->jr);
    } else if (s->measure == RP_MEASURE_TIME && d->reading_raw && tok == RP_JT_NUMBER) {
        if (!rp_jr_int(&d->jr, &s->time_ns) || s->time_ns < 0) {
            char message[96];
            snprintf(message, sizeof(message), "raw sample %zu: its time must be a non-negative integer (ns)", si);
            return rp_doc_shape_error(d, tok, message);
        }
        d->timed |= s->time_ns > 0;
        tok = rp_jr_next(&d->jr);
    }
    for (; tok != RP_JT_END_ARRAY; tok = rp_jr_next(&d->jr))
        if (!rp_jr_skip(&d->jr, tok))
            return rp_doc_shape_error(d, RP_JT_ERROR, "");
    return 0;
}

static int read_sample(struct doc *d, rp_jtok tok, size_t si, rp_measure measure)
{
    char message[96];
    snprintf(message, sizeof(message), "sample %zu: expected [frames, weight, thread_seq, label_set_id]", si);
    if (tok != RP_JT_BEGIN_ARRAY)
        return rp_doc_shape_error(d, tok, message);
    uint32_t depth = 0;
    struct pending_sample s = {.measure = (uint8_t)measure};
    if ((tok = rp_jr_next(&d->jr)) == RP_JT_END_ARRAY)
        return rp_doc_shape_error(d, tok, message);
    if (read_frames(d, tok, si, &depth) != 0)
        return -1;
    tok = rp_jr_next(&d->jr);
    if (tok == RP_JT_END_ARRAY)
        return rp_doc_shape_error(d, tok, message);
    if (tok != RP_JT_NUMBER || !rp_jr_int(&d->jr, &s.weight) || s.weight < 0) {
        snprintf(message, sizeof(message), "sample %zu: weight must be a non-negative integer", si);
        return rp_doc_shape_error(d, tok, message);
    }
    if (read_sample_tail(d, si, &s) != 0)
        return -1;
    s.stack = rp_profile_stack(d->p, d->frames, depth);
    if (s.stack == RP_IDX_NONE || RP_VEC_RESERVE(d->samples, d->samples_cap, d->sample_count + 1) != 0)
        return rp_doc_out_of_memory(d);
    d->samples[d->sample_count++] = s;
    return 0;
}

/* The array of samples of `measure` under `key`; `seen`: such an array was
 * read already (both aggregated_samples and raw_samples: the first wins). */
int rp_doc_read_samples(struct doc *d, rp_jtok tok, const char *key, rp_measure measure, bool *seen)
{
    if (tok == RP_JT_NULL)
        return 0;
    if (*seen)
        return rp_jr_skip(&d->jr, tok) ? 0 : rp_doc_shape_error(d, RP_JT_ERROR, "");
    if (tok != RP_JT_BEGIN_ARRAY)
        return rp_doc_key_shape_error(d, tok, key, "an array");
    size_t si = 0;
    d->reading_raw = strcmp(key, RP_KEY_RAW_SAMPLES) == 0;
    while ((tok = rp_jr_next(&d->jr)) != RP_JT_END_ARRAY)
        if (read_sample(d, tok, si++, measure) != 0)
            return -1;
    *seen = true;
    return 0;
}

static int add_to_table(struct doc *d, size_t i, rp_sample_table *table, const struct pending_sample *s,
                        uint32_t ls, int64_t weight)
{
    switch (rp_sample_table_add_at(table, s->stack, s->thread_seq, ls, weight, s->time_ns)) {
    case RP_SAMPLE_OK:
        return 0;
    case RP_SAMPLE_OVERFLOW:
        return rp_doc_fail(d->err, "sample %zu: total weight overflows 64 bits", i);
    default:
        return rp_doc_out_of_memory(d);
    }
}

/* With the whole document read: label ids checked and mapped, samples in
 * their tables (a retained sample's bytes beside its objects; raw samples
 * with their times, one by one). */
int rp_doc_add_samples(struct doc *d)
{
    if (d->timed) { /* raw samples with their times: kept one by one (the table is empty yet) */
        rp_sample_table_free(&d->p->samples);
        rp_sample_table_init(&d->p->samples, false);
    }
    for (size_t i = 0; i < d->sample_count; i++) {
        const struct pending_sample *s = &d->samples[i];
        if (s->file_label_set != 0 && s->file_label_set >= d->label_map_len)
            return rp_doc_fail(d->err, "sample %zu: label_set_id %" PRIu32 " is out of range (%zu label sets)",
                        i, s->file_label_set, d->label_map_len);
        uint32_t ls = s->file_label_set < d->label_map_len ? d->label_map[s->file_label_set] : 0;
        if (add_to_table(d, i, rp_profile_table(d->p, (rp_measure)s->measure), s, ls, s->weight) != 0)
            return -1;
        if (s->measure == RP_MEASURE_RETAINED_OBJECTS &&
            add_to_table(d, i, rp_profile_table(d->p, RP_MEASURE_RETAINED_BYTES), s, ls, s->bytes) != 0)
            return -1;
    }
    return 0;
}
