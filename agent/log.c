/*
 * agent/log.c — one-line messages on stderr. See log.h.
 */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdatomic.h>
#include <unistd.h>

/* Where lines go: stderr, or the file rp_log_redirect gave. */
static atomic_int log_fd = STDERR_FILENO;

void rp_log_redirect(int fd)
{
    int old = atomic_exchange(&log_fd, fd < 0 ? STDERR_FILENO : fd);
    if (old != STDERR_FILENO && old != fd)
        close(old);
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
