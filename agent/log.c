/*
 * agent/log.c — one-line messages on stderr. See log.h.
 */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
    ssize_t w = write(STDERR_FILENO, line, n);
    (void)w; /* nothing sensible to do when stderr is gone */
    errno = saved_errno;
}
