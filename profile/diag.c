/*
 * profile/diag.c — error and warning lines. See diag.h.
 */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>

static const char *program = "rperf-analyze";

void rp_diag_set_program(const char *name)
{
    program = name;
}

static void emit(const char *kind, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: %s: ", program, kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void rp_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit("error", fmt, ap);
    va_end(ap);
}

void rp_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit("warning", fmt, ap);
    va_end(ap);
}

void rp_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit("note", fmt, ap);
    va_end(ap);
}
