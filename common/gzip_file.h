/*
 * common/gzip_file.h — reading a file that may be gzip-compressed, as a
 * stream of its content.
 *
 * Owns: opening a file, telling gzip from plain content by its first
 * bytes, decompressing it piece by piece into the caller's buffer, and
 * messages that name the problem (cannot open, corrupt, truncated, too
 * large). Decompression is ISA-L's igzip (2.5 times zlib's speed on
 * profiles, and it streams: a reader needs a window, not the whole
 * document). Whatever igzip does not take as it comes — damage, an
 * unusual file — makes the read end with RP_GZ_ASK_ZLIB: the caller reads
 * the file again opened with zlib, whose verdict and words stand, so
 * every file zlib reads is read the same. One stream per thread.
 */
#ifndef RPERF_COMMON_GZIP_FILE_H
#define RPERF_COMMON_GZIP_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum rp_gz_how { RP_GZ_PLAIN, RP_GZ_IGZIP, RP_GZ_ZLIB } rp_gz_how;

typedef struct rp_gzip_file {
    rp_gz_how how;
    int fd;
    void *zlib;  /* gzFile, with zlib */
    void *igzip; /* struct inflate_state, with igzip */
    unsigned char *raw; /* the file as stored, a stretch at a time */
    size_t raw_len, raw_cap;
    bool raw_eof;
    bool done;
    uint64_t produced, max_bytes;
    const char *path;
    /* after a failure: what kind, and errno when the file itself failed */
    enum { RP_GZ_FAILED_IO = 1, RP_GZ_FAILED_DATA, RP_GZ_FAILED_SIZE } failure;
    int failure_errno;
} rp_gzip_file;

/* Results of rp_gzip_file_read besides a byte count. */
#define RP_GZ_ERROR (-1)    /* the message is in err */
#define RP_GZ_ASK_ZLIB (-2) /* open the file again with `zlib` and start over */

/* Opens `path` (with zlib when `zlib`, else igzip for gzip content).
 * Returns 0, or -1 with a message (without the file name) in err. More
 * than `max_bytes` of content is an error (a guard against gzip bombs). */
int rp_gzip_file_open(rp_gzip_file *f, const char *path, size_t max_bytes, bool zlib, char *err,
                      size_t err_size);

/* The next bytes of the content, into buf[0..room): how many (0 at the
 * end), RP_GZ_ERROR or RP_GZ_ASK_ZLIB. */
long rp_gzip_file_read(rp_gzip_file *f, char *buf, size_t room, char *err, size_t err_size);

void rp_gzip_file_close(rp_gzip_file *f);

#endif
