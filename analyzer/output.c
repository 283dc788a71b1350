/*
 * analyzer/output.c — output formats and destinations. See output.h.
 */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/filename.h"
#include "../common/out.h"
#include "../common/profile_write.h"
#include "collapsed.h"
#include "commands.h"
#include "diag.h"
#include "load.h"
#include "pprof.h"
#include "report.h"

rp_format rp_format_from_name(const char *name)
{
    if (strcmp(name, "pprof") == 0)
        return RP_FORMAT_PPROF;
    if (strcmp(name, "collapsed") == 0)
        return RP_FORMAT_COLLAPSED;
    if (strcmp(name, "text") == 0)
        return RP_FORMAT_TEXT;
    if (strcmp(name, "json") == 0)
        return RP_FORMAT_JSON;
    return RP_FORMAT_NONE;
}

rp_format rp_format_from_path(const char *path)
{
    if (rp_has_suffix(path, ".collapsed"))
        return RP_FORMAT_COLLAPSED;
    if (rp_has_suffix(path, ".txt"))
        return RP_FORMAT_TEXT;
    if (rp_has_suffix(path, ".json") || rp_has_suffix(path, ".json.gz"))
        return RP_FORMAT_JSON;
    return RP_FORMAT_PPROF;
}

/* pprof is always gzip-compressed; json when the file name says so. */
static bool compressed(rp_format format, const char *path)
{
    return format == RP_FORMAT_PPROF || (format == RP_FORMAT_JSON && path && rp_has_suffix(path, ".gz"));
}

static int encode(const rp_profile *p, rp_format format, rp_out *out, int top)
{
    switch (format) {
    case RP_FORMAT_PPROF:
        return rp_pprof_write(p, out);
    case RP_FORMAT_COLLAPSED:
        return rp_collapsed_write(p, out);
    case RP_FORMAT_TEXT:
        return rp_report_write(p, out, top, true);
    case RP_FORMAT_JSON:
        rp_profile_write_json(p, out);
        return 0;
    default:
        return -1;
    }
}

static int write_stdout(const rp_profile *p, rp_format format, int top)
{
    bool gz = compressed(format, NULL);
    if (gz && isatty(STDOUT_FILENO)) {
        rp_error("refusing to write binary pprof data to a terminal; use -o FILE or redirect stdout");
        return -1;
    }
    int fd = gz ? dup(STDOUT_FILENO) : -1;
    rp_out *out = gz ? rp_out_gzip_fd(fd, RP_GZIP_DEFAULT) : rp_out_stream(stdout, false);
    if (!out) {
        rp_error("standard output: %s", strerror(errno));
        return -1;
    }
    int rc = encode(p, format, out, top);
    int err = rp_out_close(out);
    if (rc != 0)
        rp_error("out of memory");
    else if (err)
        rp_error("writing standard output: %s", strerror(err));
    return rc == 0 && err == 0 ? 0 : -1;
}

/* Complete files only: write to PATH.tmp.<pid>, rename when done. */
static int write_file(const rp_profile *p, rp_format format, const char *path, int top)
{
    size_t tmp_len = strlen(path) + 32;
    char *tmp = malloc(tmp_len);
    if (!tmp) {
        rp_error("out of memory");
        return -1;
    }
    snprintf(tmp, tmp_len, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        rp_error("%s: cannot create: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    rp_out *out = compressed(format, path) ? rp_out_gzip_fd(fd, RP_GZIP_DEFAULT) : rp_out_stream(fdopen(fd, "w"), true);
    int rc = -1;
    if (!out) {
        rp_error("%s: %s", path, strerror(errno));
        close(fd);
    } else {
        int enc = encode(p, format, out, top);
        int err = rp_out_close(out);
        if (enc != 0)
            rp_error("%s: out of memory", path);
        else if (err)
            rp_error("%s: %s", path, strerror(err));
        else if (rename(tmp, path) != 0)
            rp_error("%s: %s", path, strerror(errno));
        else
            rc = 0;
    }
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc;
}

int rp_output_write(const rp_profile *p, rp_format format, const char *path, int top)
{
    return path ? write_file(p, format, path, top) : write_stdout(p, format, top);
}

int rp_output_convert(char *const *paths, int count, rp_format format, const char *path, int top,
                      bool lines)
{
    /* pprof and json keep every line they are given: they are data for
     * other tools, which choose their own granularity. */
    bool keep_lines = lines || format == RP_FORMAT_PPROF || format == RP_FORMAT_JSON;
    rp_profile profile;
    int rc = rp_load_paths(paths, count, keep_lines, &profile);
    if (rc == 0)
        rc = rp_output_write(&profile, format, path, top);
    rp_profile_free(&profile);
    return rc == 0 ? RP_EXIT_OK : RP_EXIT_FAILURE;
}
