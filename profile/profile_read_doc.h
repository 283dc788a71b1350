/*
 * profile/profile_read_doc.h — the document being read, inside the reader.
 *
 * Owns: the state of one document being decoded, shared by the files of
 * the profile reader only (profile_read.c decodes the format,
 * profile_read_samples.c its samples, profile_read_gem.c what only the
 * rperf gem writes). Not for other users:
 * they call profile_read.h.
 */
#ifndef RPERF_PROFILE_PROFILE_READ_DOC_H
#define RPERF_PROFILE_PROFILE_READ_DOC_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/idxset.h"
#include "../common/json_reader.h"
#include "profile.h"

struct pending_sample {
    uint32_t stack, thread_seq, file_label_set;
    int64_t weight;
    int64_t bytes;   /* retained samples: their bytes */
    int64_t time_ns; /* raw samples: when taken (0: not said) */
    uint8_t measure; /* rp_measure: time, allocated or retained objects */
};

/* A frame seen before in this document, known by its bytes: the text
 * between its brackets (a copy: a streamed document moves on), and the
 * frame it was read as. */
struct known_frame {
    size_t offset; /* into known_text */
    size_t len;
    uint32_t frame;
};

struct doc {
    rp_profile *p;
    rp_json_reader jr;
    char *err; /* RP_READ_ERROR_MAX bytes */
    int failure; /* rp_read_failure of the problem in err, or 0 */
    struct pending_sample *samples;
    size_t sample_count, samples_cap;
    bool have_samples;
    bool reading_raw; /* the array read is raw_samples */
    bool timed;       /* some raw sample said when it was taken */
    bool have_alloc, have_retained;
    uint32_t *label_map; /* file label set id → profile id */
    size_t label_map_len;
    uint32_t *frames;    /* scratch: frame ids of one sample */
    size_t frames_cap;
    rp_label *pairs;     /* scratch: one label set */
    size_t pairs_cap;
    /* Frames by their bytes: most frames of a profile repeat, and one hash
     * of their text replaces parsing and interning two strings. */
    struct known_frame *known;
    size_t known_count, known_cap;
    rp_idxset known_index;
    char *known_text;
    size_t known_text_len, known_text_cap;
};

/* What one reading thread keeps from document to document (the JSON
 * reader's window and scratch, the document's scratch arrays). */
struct rp_profile_reader {
    struct doc doc;
    int failure, failure_errno; /* the last read's (rp_read_failure) */
    char *whole; /* a document that is not streamed (pprof), whole */
    size_t whole_cap;
};

/* Formats the one-line message into `err`; returns -1. */
int rp_doc_fail(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An object of non-negative integers (already started as `tok`) into the
 * members of `base` that `table` names; other keys are skipped. Sets
 * *present. Returns 0 or -1 with the message in d->err. */
int rp_doc_read_fields(struct doc *d, rp_jtok tok, const char *name, void *base,
                       rp_int_fields table, bool *present);

/* The reader's own helpers, for the files that read parts of the
 * document (below): a wrong shape (or a syntax error), no memory, a
 * non-negative integer, a string, the field of `table` the current key
 * names (NULL: none). Each returns 0 or -1 with the message in d->err. */
int rp_doc_shape_error(struct doc *d, rp_jtok tok, const char *message);
int rp_doc_out_of_memory(struct doc *d);
int rp_doc_read_count(struct doc *d, rp_jtok tok, const char *what, int64_t *dst);
int rp_doc_read_string(struct doc *d, rp_jtok tok, const char *what, uint32_t *dst);
const rp_int_field *rp_doc_field_named(const struct doc *d, rp_int_fields table);

/* A top-level key whose value has the wrong type: "KEY" must be EXPECTED. */
int rp_doc_key_shape_error(struct doc *d, rp_jtok tok, const char *key, const char *expected);

/* profile_read_samples.c: the array of samples of `measure` under `key`
 * (`seen`: one was read already: aggregated_samples and raw_samples, the
 * first wins); and, with the whole document read, every sample into its
 * table (label sets checked and mapped). */
int rp_doc_read_samples(struct doc *d, rp_jtok tok, const char *key, rp_measure measure, bool *seen);
int rp_doc_add_samples(struct doc *d);

/* profile_read_requests.c: "requests" (profile/requests.h). */
int rp_doc_read_requests(struct doc *d, rp_jtok tok);

/* profile_read_gem.c: the gem's "gc_stats", and its label values. */
int rp_gem_read_gc_stats(struct doc *d, rp_jtok tok);
/* The profile string of a label value (already started as `tok`);
 * RP_IDX_NONE when out of memory, RP_IDX_NONE - 1 when not a scalar. */
uint32_t rp_gem_label_value(struct doc *d, rp_jtok tok);

#endif
