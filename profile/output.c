/*
 * profile/output.c — output destinations. See output.h.
 */
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../common/atomic_file.h"
#include "diag.h"

/* An encoder run as a writer (rp_output_to). */
struct encoding {
    const rp_profile *p;
    const rp_format *format;
    const rp_encode_opts *opts;
};

static int encode(rp_out *out, const void *ctx)
{
    const struct encoding *e = ctx;
    return e->format->encode(e->p, out, e->opts);
}

static int write_stdout(const char *what, bool binary, bool compressed, rp_output_fn write, const void *ctx)
{
    if (binary && isatty(STDOUT_FILENO)) {
        rp_error("refusing to write binary %s data to a terminal; use -o FILE or redirect stdout", what);
        return -1;
    }
    /* compressed output gets a descriptor of its own: closing it must not
     * close stdout */
    rp_out *out = compressed ? rp_out_fd(dup(STDOUT_FILENO), RP_GZIP_DEFAULT) : rp_out_stream(stdout, false);
    if (!out) {
        rp_error("standard output: %s", strerror(errno));
        return -1;
    }
    int rc = write(out, ctx);
    int err = rp_out_close(out);
    if (rc != 0)
        rp_error("out of memory");
    else if (err)
        rp_error("writing standard output: %s", strerror(err));
    return rc == 0 && err == 0 ? 0 : -1;
}

int rp_output_file(const char *path, rp_file_access access, bool compressed, rp_output_fn write,
                   const void *ctx)
{
    rp_atomic_file f;
    int err = rp_atomic_file_open(&f, path, access, compressed ? RP_GZIP_FAST : RP_NOT_COMPRESSED);
    if (err)
        return err;
    bool written = write(f.out, ctx) == 0;
    err = rp_atomic_file_finish(&f, written);
    return !written ? ENOMEM : err;
}

static int write_file(const char *path, bool compressed, rp_output_fn write, const void *ctx)
{
    int err = rp_output_file(path, RP_FILE_SHARED, compressed, write, ctx);
    if (err)
        rp_error("%s: %s", path, strerror(err));
    return err ? -1 : 0;
}

int rp_output_to(const char *path, const char *what, bool binary, bool compressed, rp_output_fn write,
                 const void *ctx)
{
    return path ? write_file(path, compressed, write, ctx) : write_stdout(what, binary, compressed, write, ctx);
}

int rp_output_write(const rp_profile *p, const rp_format *format, const rp_encode_opts *opts,
                    const char *path)
{
    struct encoding e = {p, format, opts};
    return rp_output_to(path, format->name, format->binary, rp_format_compressed(format, path), encode, &e);
}
