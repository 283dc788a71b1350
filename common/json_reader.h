/*
 * common/json_reader.h — a pull parser for JSON documents in memory.
 *
 * Owns: JSON syntax on the reading side: tokens one at a time, structure
 * checked as it goes (nesting, commas, colons, keys), strings unescaped
 * (without copying when they need no unescaping), numbers checked against
 * the JSON grammar. It builds no tree, so a reader can intern what it
 * needs and skip the rest at the speed of a scan.
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
} rp_json_reader;

void rp_jr_init(rp_json_reader *r, const char *data, size_t len);
void rp_jr_free(rp_json_reader *r);

rp_jtok rp_jr_next(rp_json_reader *r);

/* Skips the rest of a value whose first token `first` was just returned
 * (a scalar, or the opening of a container). Returns false on error. */
bool rp_jr_skip(rp_json_reader *r, rp_jtok first);

/* The current NUMBER token as an integer; false if it has a fraction or
 * exponent, or does not fit in 64 bits. */
bool rp_jr_int(const rp_json_reader *r, int64_t *out);
/* The current NUMBER token as a double. */
double rp_jr_double(const rp_json_reader *r);

/* After RP_JT_ERROR: "line N: what went wrong" into buf. */
void rp_jr_error(const rp_json_reader *r, char *buf, size_t size);

#endif
