/*
 * agent/base/log.c — one-line messages on stderr. See log.h.
 */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdatomic.h>
#include <unistd.h>

/* Where lines go: stderr until a redirection, then a descriptor of the
 * agent's own that is never closed, only pointed at another file by dup3
 * (atomic): a thread writing a line meanwhile (the worker) writes to the
 * old file or the new, never to a number the program may have been given
 * for a file of its own. */
static atomic_int log_fd = STDERR_FILENO;
static int own_fd = -1;

/* GVL held (one caller at a time). */
void rp_log_redirect(int fd)
{
    if (own_fd < 0) {
        if (fd < 0)
            return;
        own_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        close(fd);
        if (own_fd >= 0)
            atomic_store(&log_fd, own_fd);
        return;
    }
    if (dup3(fd < 0 ? STDERR_FILENO : fd, own_fd, O_CLOEXEC) < 0 && fd >= 0)
        dup3(STDERR_FILENO, own_fd, O_CLOEXEC);
    if (fd >= 0 && fd != own_fd)
        close(fd);
}

void rp_log(const char *fmt, ...)
{
    char line[1024];
    int saved_errno = errno;
    size_t n = (size_t)snprintf(line, sizeof(line), "rperf: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
    va_end(ap);
    if (m < 0)
        m = 0;
    n += (size_t)m < sizeof(line) - n - 1 ? (size_t)m : sizeof(line) - n - 2;
    line[n++] = '\n';
    ssize_t w = write(atomic_load(&log_fd), line, n);
    (void)w; /* nothing sensible to do when stderr is gone */
    errno = saved_errno;
}
