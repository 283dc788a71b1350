/*
 * agent/base/fd_reserve.c — the spare descriptor. See fd_reserve.h.
 */
#include "fd_reserve.h"

#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

static int reserved = -1;
static dev_t reserved_dev;
static ino_t reserved_ino;

void rp_fd_reserve_take(const char *dir)
{
    if (reserved >= 0)
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return;
    }
    reserved = fd;
    reserved_dev = st.st_dev;
    reserved_ino = st.st_ino;
}

void rp_fd_reserve_give_back(void)
{
    if (reserved < 0)
        return;
    struct stat st;
    bool still_ours = fstat(reserved, &st) == 0 && S_ISDIR(st.st_mode) &&
                      st.st_dev == reserved_dev && st.st_ino == reserved_ino;
    if (still_ours)
        close(reserved);
    reserved = -1;
}
