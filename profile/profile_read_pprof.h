/*
 * profile/profile_read_pprof.h — reading pprof files, inside the reader.
 *
 * Owns: recognising a profile.proto document by its first byte and
 * decoding it into the model (profile_read.c calls these; other users
 * call profile_read.h, which reads either format).
 */
#ifndef RPERF_PROFILE_PROFILE_READ_PPROF_H
#define RPERF_PROFILE_PROFILE_READ_PPROF_H

#include <stdbool.h>
#include <stddef.h>

#include "profile.h"

/* Whether `data` starts like a profile.proto Profile message rather than
 * like JSON (callers try JSON first when it starts with '{'). */
bool rp_pprof_looks_like(const char *data, size_t len);

/* Decodes a profile.proto document (pprof's, as this analyzer and the
 * rperf gem write it: functions and locations back to [path, label]
 * frames, string labels to label sets, the numeric label thread_seq to
 * the thread). Returns 0, or -1 with a one-line message in `err`
 * (RP_READ_ERROR_MAX bytes). */
int rp_pprof_read(rp_profile *p, const char *data, size_t len, char *err);

#endif
