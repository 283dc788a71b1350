/*
 * common/filename.h — what a file's name says.
 *
 * Owns: suffix tests on file names. The suffixes themselves live where
 * their meaning does: profile/schema.h for profile files (profile/load.c
 * tells them in a directory), profile/encode/format.c for outputs.
 */
#ifndef RPERF_COMMON_FILENAME_H
#define RPERF_COMMON_FILENAME_H

#include <stdbool.h>
#include <string.h>

static inline bool rp_has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), m = strlen(suffix);
    return n >= m && strcmp(name + n - m, suffix) == 0;
}

#endif
