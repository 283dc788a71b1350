/*
 * common/gzip.h — the gzip functions rp_out compresses with.
 *
 * Owns: the seam between common/out.c and the compressor. The analyzer
 * links ISA-L's igzip (common/gzip_isal.c: it re-encodes whole sessions,
 * several times faster than zlib); the agent's Ruby extension and the
 * tests link zlib (common/gzip_zlib.c); the agent's
 * sampling core, which is loaded into every process a
 * Ruby program starts, must not drag libz into each of them, so it
 * resolves the same functions with dlopen only when a Ruby process writes
 * its profile (agent/base/zlib_loader.c; libruby has already loaded libz).
 */
#ifndef RPERF_COMMON_GZIP_H
#define RPERF_COMMON_GZIP_H

typedef struct rp_gzip_api {
    void *(*dopen)(int fd, const char *mode);          /* gzdopen */
    int (*write)(void *gz, const void *buf, unsigned len); /* gzwrite */
    int (*close)(void *gz);                            /* gzclose */
} rp_gzip_api;

/* The functions, or NULL when zlib cannot be had (errno set). */
const rp_gzip_api *rp_gzip_api_get(void);

#endif
