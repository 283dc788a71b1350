/*
 * profile/output.h — where an output goes.
 *
 * Owns: writing an encoded profile to a file (published whole, with the
 * mode of a file the user asked for: common/atomic_file.h) or to stdout
 * (which refuses a binary format when it is a terminal), gzip-compressed
 * when the format says so (format.h).
 */
#ifndef RPERF_PROFILE_OUTPUT_H
#define RPERF_PROFILE_OUTPUT_H

#include "profile.h"
#include "../common/atomic_file.h"
#include "encode/format.h"

/* What writes an output: returns 0, or -1 when memory ran out. */
typedef int (*rp_output_fn)(rp_out *out, const void *ctx);

/* Writes what `write` produces to the file `path` (published whole:
 * atomic_file.h), gzip-compressed when `compressed`. Returns 0, or an
 * errno value (ENOMEM when `write` ran out of memory); prints nothing. */
int rp_output_file(const char *path, rp_file_access access, bool compressed, rp_output_fn write,
                   const void *ctx);

/* Writes what `write` produces to `path` (NULL: stdout), gzip-compressed
 * when `compressed`; `binary` output is refused on a terminal, naming it
 * `what`. Returns 0, or -1 after an error line. */
int rp_output_to(const char *path, const char *what, bool binary, bool compressed, rp_output_fn write,
                 const void *ctx);

/* Writes `p` as `format` to `path` (NULL: stdout). Returns 0, or -1 after
 * an error line. */
int rp_output_write(const rp_profile *p, const rp_format *format, const rp_encode_opts *opts,
                    const char *path);

#endif
