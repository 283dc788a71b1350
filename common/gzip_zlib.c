/*
 * common/gzip_zlib.c — rp_gzip_api backed by the linked zlib (analyzer,
 * tests). See gzip.h.
 */
#include "gzip.h"

#include <zlib.h>

static void *zlib_dopen(int fd, const char *mode)
{
    return gzdopen(fd, mode);
}

static int zlib_write(void *gz, const void *buf, unsigned len)
{
    return gzwrite((gzFile)gz, buf, len);
}

static int zlib_close(void *gz)
{
    return gzclose((gzFile)gz);
}

const rp_gzip_api *rp_gzip_api_get(void)
{
    static const rp_gzip_api api = {zlib_dopen, zlib_write, zlib_close};
    return &api;
}
