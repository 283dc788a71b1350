/*
 * common/atomic_file.c — write to a temporary name, then rename. See
 * atomic_file.h.
 */
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static mode_t mode_of(rp_file_access access)
{
    return access == RP_FILE_PRIVATE ? 0600 : 0666;
}

/* A path that names a device or a pipe (/dev/stdout, a FIFO) is written
 * in place: it has no directory entry to publish, and readers of it read a
 * stream anyway. */
static bool is_special(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

static int open_in_place(rp_atomic_file *f, int gzip_level)
{
    f->tmp[0] = '\0';
    int fd = open(f->path, O_WRONLY | O_CLOEXEC | O_APPEND);
    if (fd < 0)
        return errno;
    if (!(f->out = rp_out_fd(fd, gzip_level)))
        return errno;
    return 0;
}

int rp_atomic_file_open(rp_atomic_file *f, const char *path, rp_file_access access, int gzip_level)
{
    f->path = path;
    f->out = NULL;
    if (is_special(path))
        return open_in_place(f, gzip_level);
    if (snprintf(f->tmp, sizeof(f->tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(f->tmp))
        return ENAMETOOLONG;
    int fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_of(access));
    if (fd < 0)
        return errno;
    if (!(f->out = rp_out_fd(fd, gzip_level))) {
        int err = errno;
        unlink(f->tmp);
        return err;
    }
    return 0;
}

int rp_atomic_file_finish(rp_atomic_file *f, bool publish)
{
    int err = rp_out_close(f->out);
    f->out = NULL;
    if (!f->tmp[0])
        return err; /* written in place */
    if (publish && !err && rename(f->tmp, f->path) != 0)
        err = errno;
    if (!publish || err)
        unlink(f->tmp);
    return err;
}
