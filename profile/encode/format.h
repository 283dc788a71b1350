/*
 * profile/encode/format.h — the output formats, as one table.
 *
 * Owns: every format rperf-analyze writes, each one row: its name
 * (--NAME, --format NAME), the file extensions that choose it for -o (as
 * the gem maps them; anything else is pprof), whether it is binary (then
 * refused on a terminal) and gzip-compressed, whether it carries a
 * profile's lines whatever --lines says, whether it shows time (the
 * viewer's time strip), one line of help, and its encoder. Adding a format is an encoder file and a row here.
 */
#ifndef RPERF_PROFILE_FORMAT_H
#define RPERF_PROFILE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "../../common/out.h"
#include "../profile.h"
#include "encoder.h"

typedef enum rp_compression {
    RP_UNCOMPRESSED,
    RP_GZIP,              /* always */
    RP_GZIP_IF_NAMED_GZ,  /* a file whose name ends in .gz; stdout plain */
} rp_compression;

typedef struct rp_format {
    const char *name;
    const char *extensions[3]; /* NULL-terminated */
    bool binary;
    rp_compression compression;
    bool keeps_lines;
    bool time_slots; /* keeps each file's stretch of time apart (load.h) */
    const char *help;
    rp_encoder encode;
} rp_format;

extern const rp_format rp_formats[];
extern const size_t rp_format_count;

/* The format called `name`, or NULL. */
const rp_format *rp_format_named(const char *name);
/* The format the extension of `path` chooses (pprof when none does). */
const rp_format *rp_format_for_path(const char *path);
/* Whether output to `path` (NULL: stdout) is gzip-compressed. */
bool rp_format_compressed(const rp_format *f, const char *path);

#endif
