/*
 * profile/diag.h — the profile library's messages on stderr.
 *
 * Owns: the one-line format of errors, warnings and notes ("PROGRAM: error:
 * FILE: problem"), PROGRAM being rperf-analyze unless the library's user
 * says otherwise (the Ruby API says rperf).
 */
#ifndef RPERF_PROFILE_DIAG_H
#define RPERF_PROFILE_DIAG_H

/* The program named in every message from now on. */
void rp_diag_set_program(const char *name);

void rp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* What an option left out or changed, said so that no figure misleads. */
void rp_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
