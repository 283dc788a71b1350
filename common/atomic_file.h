/*
 * common/atomic_file.h — writing a file that readers only ever see whole.
 *
 * Owns: writing through a temporary name in the same directory
 * (PATH.tmp.<pid>, created exclusively so nothing already there is
 * followed or overwritten) and publishing it with rename(), which is
 * atomic (a device or a pipe, such as /dev/stdout, is written in place);
 * and the mode each kind of file gets:
 *   RP_FILE_PRIVATE  0600 (a umask can only narrow it): the agent's
 *                    profiles. They hold the program's command line, paths
 *                    and timings, inside a session directory that is 0700.
 *   RP_FILE_SHARED   0666 less the umask: a file the user asked the
 *                    analyzer for (-o), like any tool's output.
 */
#ifndef RPERF_COMMON_ATOMIC_FILE_H
#define RPERF_COMMON_ATOMIC_FILE_H

#include <stdbool.h>

#include "out.h"

typedef enum rp_file_access { RP_FILE_PRIVATE, RP_FILE_SHARED } rp_file_access;

typedef struct rp_atomic_file {
    const char *path;
    char tmp[4096];
    rp_out *out; /* write here between open and finish */
} rp_atomic_file;

/* Creates the temporary file for `path` and f->out on it, gzip-compressed
 * at `gzip_level` or plain (RP_NOT_COMPRESSED, out.h). Returns 0 or an errno
 * value (nothing is left behind then). */
int rp_atomic_file_open(rp_atomic_file *f, const char *path, rp_file_access access, int gzip_level);

/* Closes f->out; when `publish` and every byte was written, renames the
 * file to its path, otherwise removes it. Returns 0 or an errno value. */
int rp_atomic_file_finish(rp_atomic_file *f, bool publish);

#endif
