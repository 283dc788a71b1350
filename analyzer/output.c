/*
 * analyzer/output.c — output destinations. See output.h.
 */
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../common/atomic_file.h"
#include "diag.h"

static int write_stdout(const rp_profile *p, const rp_format *format, const rp_options *o)
{
    if (format->binary && isatty(STDOUT_FILENO)) {
        rp_error("refusing to write binary %s data to a terminal; use -o FILE or redirect stdout",
                 format->name);
        return -1;
    }
    /* compressed output gets a descriptor of its own: closing it must not
     * close stdout */
    rp_out *out = rp_format_compressed(format, NULL) ? rp_out_fd(dup(STDOUT_FILENO), RP_GZIP_DEFAULT)
                                                     : rp_out_stream(stdout, false);
    if (!out) {
        rp_error("standard output: %s", strerror(errno));
        return -1;
    }
    int rc = format->encode(p, out, o);
    int err = rp_out_close(out);
    if (rc != 0)
        rp_error("out of memory");
    else if (err)
        rp_error("writing standard output: %s", strerror(err));
    return rc == 0 && err == 0 ? 0 : -1;
}

static int write_file(const rp_profile *p, const rp_format *format, const rp_options *o,
                      const char *path)
{
    rp_atomic_file f;
    int level = rp_format_compressed(format, path) ? RP_GZIP_DEFAULT : RP_NOT_COMPRESSED;
    int err = rp_atomic_file_open(&f, path, RP_FILE_SHARED, level);
    if (err) {
        rp_error("%s: cannot create: %s", path, strerror(err));
        return -1;
    }
    bool encoded = format->encode(p, f.out, o) == 0;
    err = rp_atomic_file_finish(&f, encoded);
    if (!encoded)
        rp_error("%s: out of memory", path);
    else if (err)
        rp_error("%s: %s", path, strerror(err));
    return encoded && !err ? 0 : -1;
}

int rp_output_write(const rp_profile *p, const rp_format *format, const rp_options *o,
                    const char *path)
{
    return path ? write_file(p, format, o, path) : write_stdout(p, format, o);
}
