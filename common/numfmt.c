/*
 * common/numfmt.c — gem-compatible number formatting. See numfmt.h.
 */
#include "numfmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Inserts a comma every three digits of the integer part of `digits`
 * (which may start with '-' and may carry a ".fraction" tail). */
static const char *group(const char *digits, char buf[RP_NUMFMT_MAX])
{
    const char *p = digits;
    char *o = buf;
    if (*p == '-')
        *o++ = *p++;
    size_t int_len = strcspn(p, ".");
    for (size_t i = 0; i < int_len; i++) {
        if (i > 0 && (int_len - i) % 3 == 0)
            *o++ = ',';
        *o++ = p[i];
    }
    strcpy(o, p + int_len);
    return buf;
}

const char *rp_fmt_int(int64_t value, char buf[RP_NUMFMT_MAX])
{
    char digits[RP_NUMFMT_MAX];
    snprintf(digits, sizeof(digits), "%" PRId64, value);
    return group(digits, buf);
}

const char *rp_fmt_ms(int64_t ns, char buf[RP_NUMFMT_MAX])
{
    char digits[RP_NUMFMT_MAX];
    snprintf(digits, sizeof(digits), "%.1f", (double)ns / 1e6);
    return group(digits, buf);
}

const char *rp_fmt_round(double value, char buf[RP_NUMFMT_MAX])
{
    char digits[RP_NUMFMT_MAX];
    snprintf(digits, sizeof(digits), "%.0f", isfinite(value) ? round(value) : 0.0);
    return group(digits, buf);
}

double rp_ruby_round(double x, int digits)
{
    double s = pow(10.0, digits), f = round(x * s);
    if (x > 0 && (f + 0.5) / s <= x)
        f += 1;
    else if (x < 0 && (f - 0.5) / s >= x)
        f -= 1;
    return f / s;
}

const char *rp_fmt_ruby_float(double x, int digits, char buf[RP_NUMFMT_MAX])
{
    snprintf(buf, RP_NUMFMT_MAX, "%.*f", digits, rp_ruby_round(x, digits));
    if (digits <= 0)
        return buf;
    char *end = buf + strlen(buf);
    while (end > buf + 2 && end[-1] == '0' && end[-2] != '.')
        *--end = '\0';
    return buf;
}
