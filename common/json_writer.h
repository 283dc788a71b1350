/*
 * common/json_writer.h — streaming JSON output.
 *
 * Owns: JSON syntax (commas, nesting, string escaping, number text) for
 * writers that stream large documents without building them in memory.
 * Strings are written as valid UTF-8: bytes that are not are replaced by
 * U+FFFD, so any reader (jansson, Ruby's JSON) accepts the file. With
 * html_safe, '<' and '&' are written as \u escapes ("</" as "<\/"),
 * so the document can sit inside an HTML <script> element whatever its
 * strings say.
 */
#ifndef RPERF_COMMON_JSON_WRITER_H
#define RPERF_COMMON_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "out.h"

#define RP_JSON_MAX_DEPTH 32

typedef struct rp_json {
    rp_out *out;
    int depth;
    bool need_comma[RP_JSON_MAX_DEPTH + 1];
    bool after_key;
    bool html_safe; /* set after rp_json_init; see above */
} rp_json;

void rp_json_init(rp_json *j, rp_out *out);

void rp_json_begin_object(rp_json *j);
void rp_json_end_object(rp_json *j);
void rp_json_begin_array(rp_json *j);
void rp_json_end_array(rp_json *j);

void rp_json_key(rp_json *j, const char *key);
void rp_json_string(rp_json *j, const char *s, size_t len);
void rp_json_cstring(rp_json *j, const char *s);
void rp_json_int(rp_json *j, int64_t v);
void rp_json_double(rp_json *j, double v);
void rp_json_bool(rp_json *j, bool v);
void rp_json_null(rp_json *j);
/* A value already written as JSON text: a number in a format of the
 * caller's own, an object checked and written before (json_flat.h). */
void rp_json_raw(rp_json *j, const char *text);
void rp_json_raw_len(rp_json *j, const char *text, size_t len);

/* The JSON `write(j, ctx)` writes, as malloc'd NUL-terminated text; NULL
 * when out of memory or when `write` returns false. */
char *rp_json_to_text(bool (*write)(rp_json *j, const void *ctx), const void *ctx);

/* key + value shorthands for object members */
void rp_json_member_int(rp_json *j, const char *key, int64_t v);
void rp_json_member_cstring(rp_json *j, const char *key, const char *s);

#endif
