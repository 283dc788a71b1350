/*
 * profile/diag.h — rperf-analyze's messages on stderr.
 *
 * Owns: the one-line format of errors and warnings ("rperf-analyze:
 * error: FILE: problem").
 */
#ifndef RPERF_PROFILE_DIAG_H
#define RPERF_PROFILE_DIAG_H

void rp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
