/*
 * profile/timewin.c — time windows. See timewin.h.
 */
#include "timewin.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#define NS_PER_S 1000000000LL

/* 30s, 10m, 2h, 1d: a positive whole number and a unit. */
static bool parse_duration(const char *arg, int64_t *ns)
{
    char *end;
    if (!isdigit((unsigned char)arg[0]))
        return false;
    long long n = strtoll(arg, &end, 10);
    static const struct { char unit; int64_t seconds; } units[] = {
        {'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400},
    };
    if (n <= 0 || n > 100000 || end[0] == '\0' || end[1] != '\0')
        return false;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (end[0] == units[i].unit) {
            *ns = (int64_t)n * units[i].seconds * NS_PER_S;
            return true;
        }
    return false;
}

/* Z, +HH:MM or -HH:MM: seconds east of UTC into *offset. */
static bool parse_offset(const char *s, long *offset)
{
    int h, m;
    char sign;
    if (strcmp(s, "Z") == 0) {
        *offset = 0;
        return true;
    }
    if (sscanf(s, "%c%2d:%2d", &sign, &h, &m) != 3 || (sign != '+' && sign != '-') ||
        strlen(s) != 6 || h > 23 || m > 59)
        return false;
    *offset = (sign == '-' ? -1 : 1) * (h * 3600L + m * 60L);
    return true;
}

/* YYYY-MM-DDTHH:MM:SS[Z|±HH:MM] (a space for the T too). */
static bool parse_absolute(const char *arg, int64_t *ns)
{
    struct tm tm = {0};
    int used = 0;
    char sep;
    if (sscanf(arg, "%4d-%2d-%2d%c%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &sep,
               &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &used) != 7 ||
        (sep != 'T' && sep != ' ') || used != 19)
        return false;
    if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
        tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
        return false;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    time_t t;
    if (arg[used] == '\0') {
        tm.tm_isdst = -1;
        t = mktime(&tm);
    } else {
        long offset;
        if (!parse_offset(arg + used, &offset))
            return false;
        t = timegm(&tm) - offset;
    }
    if (t == (time_t)-1)
        return false;
    *ns = (int64_t)t * NS_PER_S;
    return true;
}

int rp_time_bound_parse(const char *arg, rp_time_bound *b)
{
    b->set = true;
    b->back = parse_duration(arg, &b->ns);
    return b->back || parse_absolute(arg, &b->ns) ? 0 : -1;
}

static int64_t resolve(const rp_time_bound *b, int64_t newest_end_ns, int64_t unset)
{
    if (!b->set)
        return unset;
    return b->back ? newest_end_ns - b->ns : b->ns;
}

void rp_time_window_resolve(const rp_time_window *w, int64_t newest_end_ns, int64_t *from,
                            int64_t *to)
{
    *from = resolve(&w->since, newest_end_ns, INT64_MIN);
    *to = resolve(&w->until, newest_end_ns, INT64_MAX);
}

const char *rp_time_format(int64_t ns, char *buf, size_t size)
{
    time_t t = (time_t)(ns / NS_PER_S);
    struct tm tm;
    if (!localtime_r(&t, &tm) || strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm) == 0)
        snprintf(buf, size, "?");
    return buf;
}

const char *rp_time_window_text(const rp_load_facts *f, char *buf, size_t size)
{
    char from[32] = "(start)", to[32] = "(end)";
    if (f->window_from_ns != INT64_MIN)
        rp_time_format(f->window_from_ns, from, sizeof(from));
    if (f->window_to_ns != INT64_MAX)
        rp_time_format(f->window_to_ns, to, sizeof(to));
    snprintf(buf, size, "%s .. %s (local time), %zu of %zu parts read", from, to, f->files_kept,
             f->files_kept + f->files_outside);
    return buf;
}
