/*
 * common/out.c — buffered byte output, plain or gzip. See out.h.
 */
#include "out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gzip.h"

static rp_out *out_new(void)
{
    rp_out *out = calloc(1, sizeof(*out));
    if (!out)
        errno = ENOMEM;
    return out;
}

/* Compressed output on `fd` at zlib level `level`; NULL on failure (fd
 * left open). */
static rp_out *gzip_fd(int fd, int level)
{
    const rp_gzip_api *gzip = rp_gzip_api_get();
    if (!gzip)
        return NULL;
    rp_out *out = out_new();
    if (!out)
        return NULL;
    char mode[8];
    snprintf(mode, sizeof(mode), "wb%d", level);
    errno = 0;
    void *gz = gzip->dopen(fd, mode);
    if (!gz) {
        free(out);
        errno = errno ? errno : ENOMEM;
        return NULL;
    }
    out->gz = gz;
    out->gzip = gzip;
    return out;
}

void rp_out_between_chunks(rp_out *out, void (*fn)(void *arg), void *arg)
{
    out->between_chunks = fn;
    out->between_arg = arg;
}

rp_out *rp_out_stream(FILE *fp, bool own)
{
    rp_out *out = out_new();
    if (!out)
        return NULL;
    out->fp = fp;
    out->own_fp = own;
    return out;
}

/* Plain output on a descriptor; NULL (fd closed) on failure. */
static rp_out *plain_fd(int fd)
{
    FILE *fp = fdopen(fd, "w");
    rp_out *out = fp ? rp_out_stream(fp, true) : NULL;
    if (!out) {
        if (fp)
            fclose(fp);
        else
            close(fd);
    }
    return out;
}

rp_out *rp_out_fd(int fd, int gzip_level)
{
    if (fd < 0)
        return NULL;
    errno = 0;
    rp_out *out = gzip_level == RP_NOT_COMPRESSED ? plain_fd(fd) : gzip_fd(fd, gzip_level);
    int err = errno ? errno : EIO;
    if (!out && gzip_level != RP_NOT_COMPRESSED)
        close(fd); /* gzip_fd leaves it open when it fails */
    errno = err;
    return out;
}

static void note_error(rp_out *out, int err)
{
    if (!out->error)
        out->error = err ? err : EIO;
}

static void flush_buffer(rp_out *out)
{
    if (out->len == 0 || out->error) {
        out->len = 0;
        return;
    }
    if (out->gz) {
        errno = 0;
        if (out->gzip->write(out->gz, out->buf, (unsigned)out->len) != (int)out->len)
            note_error(out, errno);
    } else if (fwrite(out->buf, 1, out->len, out->fp) != out->len) {
        note_error(out, errno);
    }
    out->len = 0;
}

size_t rp_out_written(const rp_out *out)
{
    return out->written;
}

void rp_out_write(rp_out *out, const void *data, size_t len)
{
    const char *p = data;
    out->written += len;
    while (len > 0) {
        if (out->len == sizeof(out->buf)) {
            flush_buffer(out);
            if (out->between_chunks)
                out->between_chunks(out->between_arg);
        }
        size_t room = sizeof(out->buf) - out->len;
        size_t n = len < room ? len : room;
        memcpy(out->buf + out->len, p, n);
        out->len += n;
        p += n;
        len -= n;
    }
}

void rp_out_puts(rp_out *out, const char *s)
{
    rp_out_write(out, s, strlen(s));
}

void rp_out_printf(rp_out *out, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0) {
        note_error(out, EINVAL);
        return;
    }
    if ((size_t)n < sizeof(small)) {
        rp_out_write(out, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        note_error(out, ENOMEM);
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    rp_out_write(out, big, (size_t)n);
    free(big);
}

int rp_out_close(rp_out *out)
{
    flush_buffer(out);
    if (out->gz) {
        errno = 0;
        if (out->gzip->close(out->gz) != 0) /* Z_OK */
            note_error(out, errno);
    } else {
        if (fflush(out->fp) != 0)
            note_error(out, errno);
        if (out->own_fp && fclose(out->fp) != 0)
            note_error(out, errno);
    }
    int err = out->error;
    free(out);
    return err;
}
