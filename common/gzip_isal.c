/*
 * common/gzip_isal.c — rp_gzip_api backed by ISA-L's igzip (the analyzer).
 * See gzip.h.
 *
 * Why not zlib: the analyzer re-encodes whole sessions (convert --json,
 * --pprof), and zlib's deflate, even at level 1, was a third of such a
 * conversion's time — slower than reading the same bytes back. igzip's
 * levels 1-3 compress several times faster at a like ratio. The zlib
 * level asked for maps to the nearest: 1-2 → 1, 3-5 → 2, 6-9 → 3.
 */
#include "gzip.h"

#include <errno.h>
#include <isa-l/igzip_lib.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define OUT_BUFFER (256 * 1024)

typedef struct isal_gz {
    int fd;
    struct isal_zstream zs;
    uint8_t *level_buf;
    uint8_t out[OUT_BUFFER];
} isal_gz;

static uint32_t igzip_level(int zlib_level)
{
    return zlib_level <= 2 ? 1 : zlib_level <= 5 ? 2 : 3;
}

static uint32_t level_buf_size(uint32_t level)
{
    return level == 1 ? ISAL_DEF_LVL1_DEFAULT : level == 2 ? ISAL_DEF_LVL2_DEFAULT : ISAL_DEF_LVL3_DEFAULT;
}

/* The zlib level from a gzdopen mode ("wb1"); 6 when it says none. */
static int mode_level(const char *mode)
{
    for (const char *m = mode; *m; m++)
        if (*m >= '0' && *m <= '9')
            return *m - '0';
    return 6;
}

static void *isal_dopen(int fd, const char *mode)
{
    isal_gz *gz = malloc(sizeof(*gz));
    if (!gz) {
        errno = ENOMEM;
        return NULL;
    }
    isal_deflate_init(&gz->zs);
    gz->fd = fd;
    gz->zs.level = igzip_level(mode_level(mode));
    gz->zs.level_buf_size = level_buf_size(gz->zs.level);
    gz->level_buf = malloc(gz->zs.level_buf_size);
    if (!gz->level_buf) {
        free(gz);
        errno = ENOMEM;
        return NULL;
    }
    gz->zs.level_buf = gz->level_buf;
    gz->zs.gzip_flag = IGZIP_GZIP;
    return gz;
}

/* All of buf to the descriptor; -1 with errno set on failure. */
static int write_all(int fd, const uint8_t *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Runs the compressor over what is pending, writing what it makes, until
 * the input is taken (and with end_of_stream, the stream is ended). */
static int deflate_out(isal_gz *gz)
{
    do {
        gz->zs.next_out = gz->out;
        gz->zs.avail_out = sizeof(gz->out);
        if (isal_deflate(&gz->zs) != COMP_OK) {
            errno = EIO;
            return -1;
        }
        if (write_all(gz->fd, gz->out, sizeof(gz->out) - gz->zs.avail_out) != 0)
            return -1;
    } while (gz->zs.avail_in > 0 || (gz->zs.end_of_stream && gz->zs.internal_state.state != ZSTATE_END));
    return 0;
}

static int isal_write(void *handle, const void *buf, unsigned len)
{
    isal_gz *gz = handle;
    gz->zs.next_in = (uint8_t *)(uintptr_t)buf;
    gz->zs.avail_in = len;
    return deflate_out(gz) == 0 ? (int)len : 0;
}

static int isal_close(void *handle)
{
    isal_gz *gz = handle;
    gz->zs.next_in = NULL;
    gz->zs.avail_in = 0;
    gz->zs.end_of_stream = 1;
    int rc = deflate_out(gz);
    int err = errno;
    if (close(gz->fd) != 0 && rc == 0) {
        rc = -1;
        err = errno;
    }
    free(gz->level_buf);
    free(gz);
    errno = err;
    return rc;
}

const rp_gzip_api *rp_gzip_api_get(void)
{
    static const rp_gzip_api api = {isal_dopen, isal_write, isal_close};
    return &api;
}
