/*
 * profile/meta_read.h — a profile's meta and summary, without its samples.
 *
 * Owns: reading the gem 0.11's "meta" and "summary" from the head of a
 * profile file (.json or .json.gz), where the writer puts them first, and
 * stopping at the first other member, so that a directory of snapshots
 * is listed from a few kilobytes of each (Rperf.read_meta).
 */
#ifndef RPERF_PROFILE_META_READ_H
#define RPERF_PROFILE_META_READ_H

#include "profile.h"

/* The JSON text of the file's leading "meta" and "summary" (each
 * malloc'd, or NULL when the file has it not). Returns 1 with both set
 * (either may be NULL, not both), 0 when the file does not begin with them
 * (a profile written before them, another document), -1 with a one-line
 * message in err when the file cannot be read. */
int rp_meta_read(const char *path, char **meta, char **summary, char err[RP_READ_ERROR_MAX]);

#endif
