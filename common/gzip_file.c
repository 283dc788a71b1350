/*
 * common/gzip_file.c — reading a whole, possibly compressed, file. See
 * gzip_file.h.
 */
#include "gzip_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "vec.h"

/* zlib prefixes its messages with the file name, which the caller adds. */
static const char *zlib_message(const char *msg, const char *path)
{
    size_t n = strlen(path);
    return strncmp(msg, path, n) == 0 && strncmp(msg + n, ": ", 2) == 0 ? msg + n + 2 : msg;
}

/* The decompressed file; the buffer is reused from file to file. */
static char *document;
static size_t document_cap;

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
    return -1;
}

int rp_gzip_file_read(const char *path, size_t max_bytes, const char **data, size_t *len,
                      char *err, size_t err_size)
{
    errno = 0;
    gzFile gz = gzopen(path, "rb");
    if (!gz)
        return fail(err, err_size, "cannot open: %s", strerror(errno ? errno : ENOMEM));
    gzbuffer(gz, 1 << 17);
    size_t used = 0;
    int rc = 0;
    for (;;) {
        if (RP_VEC_RESERVE(document, document_cap, used + (1 << 20)) != 0) {
            rc = fail(err, err_size, "out of memory");
            break;
        }
        size_t room = document_cap - used;
        int n = gzread(gz, document + used, (unsigned)(room < (1u << 30) ? room : (1u << 30)));
        if (n < 0) {
            int zerr;
            const char *msg = gzerror(gz, &zerr);
            rc = fail(err, err_size, zerr == Z_ERRNO ? "cannot read: %s" : "corrupt gzip data (%s)",
                      zerr == Z_ERRNO ? strerror(errno) : zlib_message(msg, path));
            break;
        }
        if (n == 0)
            break;
        used += (size_t)n;
        if (used > max_bytes) {
            rc = fail(err, err_size, "larger than %zu bytes uncompressed", max_bytes);
            break;
        }
    }
    if (rc == 0) {
        /* zlib reports a stream cut short only through gzerror at the end. */
        int zerr;
        const char *msg = gzerror(gz, &zerr);
        if (zerr != Z_OK)
            rc = fail(err, err_size, "truncated or corrupt gzip data (%s)", zlib_message(msg, path));
    }
    gzclose(gz);
    *data = document;
    *len = used;
    return rc;
}
