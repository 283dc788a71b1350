/*
 * common/json_reader.h — a pull parser for JSON documents in memory.
 *
 * Owns: JSON syntax on the reading side: tokens one at a time, structure
 * checked as it goes (nesting, commas, colons, keys), strings unescaped
 * (without copying when they need no unescaping), numbers checked against
 * the JSON grammar. It builds no tree, so a reader can intern what it
 * needs and skip the rest at the speed of a scan.
 *
 * A document is either in memory whole (rp_jr_init) or streamed through a
 * window the reader refills from a source (rp_jr_init_stream): there,
 * memory holds a window and the token being read, never the document. A
 * token the window cut is read again once the window holds it whole.
 */
#ifndef RPERF_COMMON_JSON_READER_H
#define RPERF_COMMON_JSON_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_JR_MAX_DEPTH 64

typedef enum rp_jtok {
    RP_JT_ERROR = 0,  /* see rp_jr_error */
    RP_JT_END,        /* after the top-level value, end of input */
    RP_JT_BEGIN_OBJECT,
    RP_JT_END_OBJECT,
    RP_JT_BEGIN_ARRAY,
    RP_JT_END_ARRAY,
    RP_JT_KEY,        /* an object member's name: str/str_len */
    RP_JT_STRING,     /* str/str_len */
    RP_JT_NUMBER,     /* num/num_len: use rp_jr_int or rp_jr_double */
    RP_JT_TRUE,
    RP_JT_FALSE,
    RP_JT_NULL,
} rp_jtok;

/* A stream's source: the next bytes into buf[0..room); returns how many,
 * 0 at the end, or a negative value (the source keeps its own message). */
typedef long (*rp_jr_fill_fn)(void *ctx, char *buf, size_t room);

typedef struct rp_json_reader {
    const char *start, *p, *end;
    int depth;
    uint8_t in_object[RP_JR_MAX_DEPTH + 1]; /* per depth: object (1) or array (0) */
    uint8_t state;
    /* the current token */
    const char *str;
    size_t str_len;
    const char *num;
    size_t num_len;
    /* unescaped strings live here until the next token */
    char *scratch;
    size_t scratch_cap;
    /* strings that were not valid UTF-8, repaired (common/utf8.h) */
    char *repaired;
    size_t repaired_cap;
    const char *error;
    /* streaming (fill non-NULL): the window and its source */
    rp_jr_fill_fn fill;
    void *fill_ctx;
    char *window;
    size_t window_cap;
    bool at_eof;        /* the source has no more */
    long source_status; /* the source's negative result, or 0 */
    bool hit_end;       /* the token being read ran into the window's end */
    long lines_before;  /* newlines in what left the window */
} rp_json_reader;

/* Buffers (scratch, window) are kept by both from an earlier document. */
void rp_jr_init(rp_json_reader *r, const char *data, size_t len);
/* A stream whose first `len` bytes, `first`, were already taken from the
 * source. Returns 0, or -1 when out of memory. */
int rp_jr_init_stream(rp_json_reader *r, rp_jr_fill_fn fill, void *ctx, const char *first,
                      size_t len);
void rp_jr_free(rp_json_reader *r);

/* After RP_JT_ERROR of a stream: the source's negative result when the
 * source failed (then its message, not the syntax, is the problem), or 0. */
static inline long rp_jr_source_status(const rp_json_reader *r)
{
    return r->source_status;
}

rp_jtok rp_jr_next(rp_json_reader *r);

/* Skips the rest of a value whose first token `first` was just returned
 * (a scalar, or the opening of a container). Returns false on error. */
bool rp_jr_skip(rp_json_reader *r, rp_jtok first);

/* Just after RP_JT_BEGIN_ARRAY: the bytes between its brackets, with
 * *len their number, when the array holds only scalars and strings
 * without escapes — the shape of a frame in a profile, which a reader may
 * then recognise by its bytes alone. NULL for any other array (nothing is
 * consumed either way). */
const char *rp_jr_peek_flat_array(const rp_json_reader *r, size_t *len);
/* Consumes the array rp_jr_peek_flat_array returned, which the caller has
 * read before from identical bytes: the reader is then after its ']'. The
 * bytes peeked stay valid until the next rp_jr_next. */
void rp_jr_skip_flat_array(rp_json_reader *r, size_t len);

/* The current NUMBER token as an integer; false if it has a fraction or
 * exponent, or does not fit in 64 bits. */
bool rp_jr_int(const rp_json_reader *r, int64_t *out);
/* The current NUMBER token as a double. */
double rp_jr_double(const rp_json_reader *r);

/* After RP_JT_ERROR: "line N: what went wrong" into buf. */
void rp_jr_error(const rp_json_reader *r, char *buf, size_t size);

#endif
