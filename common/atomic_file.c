/*
 * common/atomic_file.c — write to a temporary name, then rename. See
 * atomic_file.h.
 */
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static mode_t mode_of(rp_file_access access)
{
    return access == RP_FILE_PRIVATE ? 0600 : 0666;
}

int rp_atomic_file_open(rp_atomic_file *f, const char *path, rp_file_access access, int gzip_level)
{
    f->path = path;
    f->out = NULL;
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
    if (publish && !err && rename(f->tmp, f->path) != 0)
        err = errno;
    if (!publish || err)
        unlink(f->tmp);
    return err;
}
