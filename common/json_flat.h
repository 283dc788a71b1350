/*
 * common/json_flat.h — small JSON objects of scalars, checked and written
 * again in one spelling.
 *
 * Owns: the objects that travel as text through an environment variable
 * or a profile's "meta" (the gem 0.11's RPERF_META_LABELS, RPERF_META_GIT,
 * meta.git, meta.labels): {"key": scalar, ...} with strings, numbers,
 * true, false or null as values and nothing nested. Parsed with the JSON
 * reader and written back by the JSON writer, so that text embedded
 * verbatim in a profile is always valid JSON, whatever a user set.
 */
#ifndef RPERF_COMMON_JSON_FLAT_H
#define RPERF_COMMON_JSON_FLAT_H

#include <stddef.h>

#include "json_reader.h"

#define RP_JSON_FLAT_ERROR_MAX 128

/* `text` (len bytes) as a flat object written canonically (no spaces,
 * members in their order, a key given twice kept once, its last value)
 * into a malloc'd NUL-terminated *out. Returns 0, or -1 with what is
 * wrong in err ("line 1: ...", "a member's value is an object", "not an
 * object", "out of memory"). */
int rp_json_flat_canonical(const char *text, size_t len, char **out, char err[RP_JSON_FLAT_ERROR_MAX]);

/* The same from a reader just after it returned RP_JT_BEGIN_OBJECT (a
 * "meta" member of a document being read): the object is consumed. */
int rp_json_flat_read(rp_json_reader *r, char **out, char err[RP_JSON_FLAT_ERROR_MAX]);

#endif
