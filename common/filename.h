/*
 * common/filename.h — what a file's name says.
 *
 * Owns: suffix tests on file names (output formats by extension, profile
 * files in a session directory). The suffixes themselves live where their
 * meaning does: schema.h for profile files, profile/encode/format.c for outputs.
 */
#ifndef RPERF_COMMON_FILENAME_H
#define RPERF_COMMON_FILENAME_H

#include <stdbool.h>
#include <string.h>

#include "../profile/schema.h"

static inline bool rp_has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), m = strlen(suffix);
    return n >= m && strcmp(name + n - m, suffix) == 0;
}

/* A profile file as the analyzer reads them from a directory: the agent's
 * gzip-compressed ones, and plain JSON (a merged or hand-made profile). */
static inline bool rp_is_profile_file_name(const char *name)
{
    return name[0] != '.' &&
           (rp_has_suffix(name, RP_PROFILE_SUFFIX) || rp_has_suffix(name, RP_PROFILE_SUFFIX_PLAIN));
}

#endif
