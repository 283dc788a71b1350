/*
 * common/gzip_file.h — reading a whole file that may be gzip-compressed.
 *
 * Owns: decompressing (or just reading, when it is not gzip) one file
 * into memory, with messages that name the problem (cannot open, corrupt,
 * truncated, too large), and the buffer it reads into, which is kept and
 * reused from file to file: the analyzer reads a session one file at a
 * time. One thread at a time.
 */
#ifndef RPERF_COMMON_GZIP_FILE_H
#define RPERF_COMMON_GZIP_FILE_H

#include <stddef.h>

/* Reads `path` whole; *data stays valid until the next call. Returns 0,
 * or -1 with a message (without the file name) in err[err_size]. More
 * than `max_bytes` decompressed is an error (a guard against gzip bombs). */
int rp_gzip_file_read(const char *path, size_t max_bytes, const char **data, size_t *len,
                      char *err, size_t err_size);

#endif
