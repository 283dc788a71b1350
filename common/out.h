/*
 * common/out.h — buffered byte output to a plain or gzip-compressed file.
 *
 * Owns: the buffering and the first write error of one output stream, so
 * that writers (JSON, pprof, text) never check errors per call: they write,
 * then ask rp_out_close() whether everything reached the file.
 */
#ifndef RPERF_COMMON_OUT_H
#define RPERF_COMMON_OUT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct rp_gzip_api;

typedef struct rp_out {
    void *gz;     /* gzFile when compressing, else NULL */
    const struct rp_gzip_api *gzip;
    FILE *fp;     /* plain stream when not compressing */
    bool own_fp;  /* close fp at rp_out_close */
    int error;    /* first errno seen (EIO when zlib gives none), 0 if none */
    size_t len;
    size_t written; /* bytes given to rp_out_write so far */
    /* rp_out_between_chunks: called after each buffer is written */
    void (*between_chunks)(void *arg);
    void *between_arg;
    char buf[1 << 16];
} rp_out;

/* zlib levels: the agent writes at exit, where speed matters more than
 * size; the analyzer writes once, for keeps. */
#define RP_GZIP_FAST 1
#define RP_GZIP_DEFAULT 6

/* `fn(arg)` is called each time a full buffer (64 KB) has been written:
 * a thread writing a large file can do its other work between chunks
 * (the agent's worker folds samples while it writes a part). */
void rp_out_between_chunks(rp_out *out, void (*fn)(void *arg), void *arg);

/* Plain output on a stream; `own` makes rp_out_close fclose it. */
rp_out *rp_out_stream(FILE *fp, bool own);

#define RP_NOT_COMPRESSED (-1) /* gzip_level of plain output */

/* Output on an open descriptor, gzip-compressed at `gzip_level` or plain
 * (RP_NOT_COMPRESSED). Takes the descriptor over: rp_out_close closes it,
 * and so does a failure here (NULL, errno set; fd may be -1). */
rp_out *rp_out_fd(int fd, int gzip_level);

void rp_out_write(rp_out *out, const void *data, size_t len);
/* The bytes written so far (before compression). */
size_t rp_out_written(const rp_out *out);
void rp_out_puts(rp_out *out, const char *s);
void rp_out_printf(rp_out *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Flushes and closes; returns 0 when every byte was written, else the
 * first errno seen. Frees `out`. */
int rp_out_close(rp_out *out);

#endif
