/*
 * analyzer/output.h — choosing and writing an output format.
 *
 * Owns: the format names and file extensions (as the gem maps them:
 * .pb.gz → pprof, .collapsed → collapsed, .txt → text, .json / .json.gz →
 * json, anything else → pprof), where output goes (a file, written to a
 * temporary name and renamed; or stdout, which refuses binary data when it
 * is a terminal), and gzip for the formats that need it.
 */
#ifndef RPERF_ANALYZER_OUTPUT_H
#define RPERF_ANALYZER_OUTPUT_H

#include <stdbool.h>

#include "../common/profile.h"

typedef enum rp_format {
    RP_FORMAT_NONE,
    RP_FORMAT_PPROF,
    RP_FORMAT_COLLAPSED,
    RP_FORMAT_TEXT,
    RP_FORMAT_JSON,
} rp_format;

/* "pprof", "collapsed", "text", "json" → format; RP_FORMAT_NONE otherwise. */
rp_format rp_format_from_name(const char *name);
/* The format a path's extension implies. */
rp_format rp_format_from_path(const char *path);

/* Writes `p` as `format` to `path` (NULL: stdout). `top` is the number of
 * rows of the text tables. Returns 0, or -1 after an error line. */
int rp_output_write(const rp_profile *p, rp_format format, const char *path, int top);

/* A whole command: loads and merges `paths`, writes the result as
 * `format`, and returns the exit status (RP_EXIT_OK or RP_EXIT_FAILURE).
 * `lines`: text and collapsed output per line of code rather than per
 * method (pprof and json always carry the lines the profile has). */
int rp_output_convert(char *const *paths, int count, rp_format format, const char *path, int top,
                      bool lines);

#endif
