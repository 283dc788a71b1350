/*
 * profile/profile_read.h — reading one profile file.
 *
 * Owns: decoding a .json.gz (or plain .json) profile written by this agent
 * or by the rperf gem 0.9 into the in-memory model, and checking every
 * value it takes from the file; pprof files (profile.proto, gzip-compressed
 * or not, as this analyzer or the gem writes them) are recognised by
 * their content and read too (profile_read_pprof.c). Nothing in a file can make the reader
 * crash or read out of bounds: each problem becomes a one-line message.
 * Any number of threads may read at once, each with its own reader.
 */
#ifndef RPERF_PROFILE_PROFILE_READ_H
#define RPERF_PROFILE_PROFILE_READ_H

#include <stddef.h>

#include "profile.h"

/* Largest decompressed document accepted (a guard against gzip bombs). */
#define RP_READ_MAX_BYTES ((size_t)4 << 30)

/* The buffers one thread reads with, kept from file to file (a thread
 * reading many files keeps one reader; readers are not shared). */
typedef struct rp_profile_reader rp_profile_reader;
rp_profile_reader *rp_profile_reader_new(void); /* NULL when out of memory */
void rp_profile_reader_free(rp_profile_reader *r);

/* Reads `path` into `p`, which the caller has initialised (aggregating).
 * Returns 0, or -1 with a message (without the file name) in `err`. */
int rp_profile_reader_read_file(rp_profile_reader *r, rp_profile *p, const char *path,
                                char err[RP_READ_ERROR_MAX]);
/* Same for a document already in memory. */
int rp_profile_reader_read_buffer(rp_profile_reader *r, rp_profile *p, const char *data,
                                  size_t len, char err[RP_READ_ERROR_MAX]);

/* After a failed read with `r`: what kind of problem the file has, and
 * for RP_READ_IO the errno of opening or reading it. (The Ruby API raises
 * a different class for each, as the gem's loader does.) */
typedef enum rp_read_failure {
    RP_READ_FAILED_IO = 1, /* the file could not be opened or read */
    RP_READ_FAILED_GZIP,   /* damaged or cut gzip data */
    RP_READ_FAILED_SYNTAX, /* not JSON (and not pprof) */
    RP_READ_FAILED_SHAPE,  /* JSON, or pprof, but not a profile of the right shape */
    RP_READ_FAILED_MEMORY,
} rp_read_failure;
rp_read_failure rp_profile_reader_failure(const rp_profile_reader *r, int *errno_out);

/* The same with a reader of their own, for one file. */
int rp_profile_read_file(rp_profile *p, const char *path, char err[RP_READ_ERROR_MAX]);
int rp_profile_read_buffer(rp_profile *p, const char *data, size_t len,
                           char err[RP_READ_ERROR_MAX]);

#endif
