/*
 * common/gzip_file.c — a possibly compressed file, as a stream. See
 * gzip_file.h.
 */
#include "gzip_file.h"

#include <errno.h>
#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* The stretch of the stored file read at a time. */
#define RAW_CHUNK (256u << 10)

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
    return -1;
}

static long too_large(rp_gzip_file *f, char *err, size_t size)
{
    fail(err, size, "larger than %llu bytes uncompressed", (unsigned long long)f->max_bytes);
    f->failure = RP_GZ_FAILED_SIZE;
    return RP_GZ_ERROR;
}

/* The file itself failed (`what`: cannot open / cannot read). Returns -1. */
static int io_failure(rp_gzip_file *f, char *err, size_t size, const char *what, int e)
{
    f->failure = RP_GZ_FAILED_IO;
    f->failure_errno = e;
    return fail(err, size, "%s: %s", what, strerror(e));
}

/* --- the stored bytes (plain files, igzip's input) ------------------------ */

/* Appends the next stretch of the file to raw[]. Returns bytes read (0 at
 * the end), or -1 with errno. */
static ssize_t read_raw(rp_gzip_file *f)
{
    for (;;) {
        ssize_t n = read(f->fd, f->raw + f->raw_len, f->raw_cap - f->raw_len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            f->raw_eof = true;
        if (n > 0)
            f->raw_len += (size_t)n;
        return n;
    }
}

static bool gzip_magic(const unsigned char *p, size_t n)
{
    return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

/* --- zlib --------------------------------------------------------------- */

/* zlib prefixes its messages with the file name, which the caller adds. */
static const char *zlib_message(const char *msg, const char *path)
{
    size_t n = strlen(path);
    return strncmp(msg, path, n) == 0 && strncmp(msg + n, ": ", 2) == 0 ? msg + n + 2 : msg;
}

static long zlib_read(rp_gzip_file *f, char *buf, size_t room, char *err, size_t size)
{
    int zerr;
    int n = gzread(f->zlib, buf, (unsigned)(room < (1u << 30) ? room : (1u << 30)));
    if (n < 0) {
        const char *msg = gzerror(f->zlib, &zerr);
        if (zerr == Z_ERRNO)
            io_failure(f, err, size, "cannot read", errno);
        else
            fail(err, size, "corrupt gzip data (%s)", zlib_message(msg, f->path));
        f->failure = zerr == Z_ERRNO ? RP_GZ_FAILED_IO : RP_GZ_FAILED_DATA;
        return RP_GZ_ERROR;
    }
    if (n == 0) {
        /* zlib reports a stream cut short only through gzerror at the end. */
        const char *msg = gzerror(f->zlib, &zerr);
        if (zerr != Z_OK) {
            fail(err, size, "truncated or corrupt gzip data (%s)", zlib_message(msg, f->path));
            f->failure = RP_GZ_FAILED_DATA;
            return RP_GZ_ERROR;
        }
    }
    return n;
}

/* --- igzip -------------------------------------------------------------- */

/* Feeds igzip the next stored stretch when it has used the last one.
 * Returns 0, or -1 with errno. */
static int feed(rp_gzip_file *f)
{
    struct inflate_state *s = f->igzip;
    if (s->avail_in > 0 || f->raw_eof)
        return 0;
    f->raw_len = 0;
    if (read_raw(f) < 0)
        return -1;
    s->next_in = f->raw;
    s->avail_in = (uint32_t)f->raw_len;
    return 0;
}

/* After a member ended: another member follows, or the file ends. Any
 * other byte (trailing data) is for zlib to judge. */
static long next_member(rp_gzip_file *f)
{
    struct inflate_state *s = f->igzip;
    if (s->avail_in < 2 && !f->raw_eof) {
        /* the next member's magic may straddle two stretches */
        memmove(f->raw, s->next_in, s->avail_in);
        f->raw_len = s->avail_in;
        if (read_raw(f) < 0)
            return RP_GZ_ASK_ZLIB;
        s->next_in = f->raw;
        s->avail_in = (uint32_t)f->raw_len;
    }
    if (s->avail_in == 0 && f->raw_eof) {
        f->done = true;
        return 0;
    }
    if (!gzip_magic(s->next_in, s->avail_in))
        return RP_GZ_ASK_ZLIB;
    uint8_t *in = s->next_in;
    uint32_t avail = s->avail_in;
    isal_inflate_reset(s);
    s->crc_flag = ISAL_GZIP;
    s->next_in = in;
    s->avail_in = avail;
    return 1;
}

static long igzip_read(rp_gzip_file *f, char *buf, size_t room, char *err, size_t size)
{
    struct inflate_state *s = f->igzip;
    while (!f->done) {
        if (feed(f) != 0) {
            io_failure(f, err, size, "cannot read", errno);
            return RP_GZ_ERROR;
        }
        s->next_out = (uint8_t *)buf;
        s->avail_out = (uint32_t)(room < (1u << 30) ? room : (1u << 30));
        uint32_t before = s->avail_out;
        if (isal_inflate(s) != ISAL_DECOMP_OK)
            return RP_GZ_ASK_ZLIB;
        long n = (long)(before - s->avail_out);
        if (s->block_state == ISAL_BLOCK_FINISH) {
            long more = next_member(f);
            if (more < 0)
                return more;
        } else if (n == 0 && s->avail_in == 0 && f->raw_eof) {
            return RP_GZ_ASK_ZLIB; /* cut short: zlib says how */
        }
        if (n > 0)
            return n;
    }
    return 0;
}

/* --- the stream --------------------------------------------------------- */

static int open_fast(rp_gzip_file *f, char *err, size_t size)
{
    f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0)
        return io_failure(f, err, size, "cannot open", errno);
    f->raw_cap = RAW_CHUNK;
    if (!(f->raw = malloc(f->raw_cap)))
        return fail(err, size, "out of memory");
    /* the first bytes say whether it is gzip */
    while (f->raw_len < 2 && !f->raw_eof)
        if (read_raw(f) < 0)
            return io_failure(f, err, size, "cannot read", errno);
    if (!gzip_magic(f->raw, f->raw_len))
        return 0; /* plain, served as it is, as zlib does */
    struct inflate_state *s = malloc(sizeof(*s));
    if (!s)
        return fail(err, size, "out of memory");
    isal_inflate_init(s);
    s->crc_flag = ISAL_GZIP;
    s->next_in = f->raw;
    s->avail_in = (uint32_t)f->raw_len;
    f->igzip = s;
    f->how = RP_GZ_IGZIP;
    return 0;
}

int rp_gzip_file_open(rp_gzip_file *f, const char *path, size_t max_bytes, bool zlib, char *err,
                      size_t err_size)
{
    *f = (rp_gzip_file){.how = RP_GZ_PLAIN, .fd = -1, .max_bytes = max_bytes, .path = path};
    if (!zlib)
        return open_fast(f, err, err_size);
    errno = 0;
    if (!(f->zlib = gzopen(path, "rb")))
        return io_failure(f, err, err_size, "cannot open", errno ? errno : ENOMEM);
    gzbuffer(f->zlib, 1 << 17);
    f->how = RP_GZ_ZLIB;
    return 0;
}

/* Plain content: what raw[] holds first, then straight from the file. */
static long plain_read(rp_gzip_file *f, char *buf, size_t room, char *err, size_t size)
{
    if (f->raw_len > 0) {
        size_t n = f->raw_len < room ? f->raw_len : room;
        memcpy(buf, f->raw, n);
        memmove(f->raw, f->raw + n, f->raw_len - n);
        f->raw_len -= n;
        return (long)n;
    }
    for (;;) {
        ssize_t n = f->raw_eof ? 0 : read(f->fd, buf, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            io_failure(f, err, size, "cannot read", errno);
            return RP_GZ_ERROR;
        }
        return n;
    }
}

long rp_gzip_file_read(rp_gzip_file *f, char *buf, size_t room, char *err, size_t err_size)
{
    long n = f->how == RP_GZ_ZLIB    ? zlib_read(f, buf, room, err, err_size)
             : f->how == RP_GZ_IGZIP ? igzip_read(f, buf, room, err, err_size)
                                     : plain_read(f, buf, room, err, err_size);
    if (n > 0 && (f->produced += (uint64_t)n) > f->max_bytes)
        return too_large(f, err, err_size);
    return n;
}

void rp_gzip_file_close(rp_gzip_file *f)
{
    if (f->zlib)
        gzclose(f->zlib);
    if (f->fd >= 0)
        close(f->fd);
    free(f->igzip);
    free(f->raw);
    *f = (rp_gzip_file){.fd = -1};
}
