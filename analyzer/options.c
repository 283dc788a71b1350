/*
 * analyzer/options.c — the shared options and usage errors. See
 * options.h.
 */
#include "options.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

void rp_options_init(rp_options *o)
{
    *o = (rp_options){.encode = RP_ENCODE_OPTS_DEFAULT, .lines = false};
}

void rp_options_free(rp_options *o)
{
    rp_tag_filters_free(&o->tags);
}

int rp_usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("rperf-analyze: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'rperf-analyze --help' for more information.\n", stderr);
    return RP_EXIT_USAGE;
}

int rp_parse_count_option(const char *option, const char *text, int *out)
{
    const char *problem = NULL;
    long long v = strtonum(text, 0, 1000000, &problem);
    if (problem) {
        rp_usage_error("%s expects an integer from 0 to 1000000, got '%s' (%s)", option, text,
                       problem);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* KEY=REGEX or REGEX, as --tagfocus/--tagignore take it (like pprof's). */
static int parse_tag_filter(rp_options *o, const char *option, const char *arg, bool ignore)
{
    char why[160];
    if (rp_tag_filters_add(&o->tags, arg, ignore, why, sizeof(why)) == 0)
        return 1;
    if (o->tags.count == RP_TAG_FILTERS_MAX)
        return rp_usage_error("%s: %s", option, why), -1;
    return rp_usage_error("%s expects KEY=REGEX, got '%s': %s", option, arg, why), -1;
}

static int parse_time_bound(const char *option, const char *arg, rp_time_bound *b)
{
    if (rp_time_bound_parse(arg, b) == 0)
        return 1;
    return rp_usage_error("%s expects a time (YYYY-MM-DDTHH:MM:SS, local, or with Z or "
                          "+HH:MM) or a duration back from the newest part (30s, 10m, 2h, "
                          "1d), got '%s'",
                          option, arg),
           -1;
}

int rp_options_parse(rp_options *o, int c, const char *arg)
{
    switch (c) {
    case RP_OPT_TOP:
        return rp_parse_count_option("--top", arg, &o->encode.top) == 0 ? 1 : -1;
    case RP_OPT_LINES:
        o->lines = o->encode.lines = true;
        return 1;
    case RP_OPT_TAGFOCUS:
        return parse_tag_filter(o, "--tagfocus", arg, false);
    case RP_OPT_TAGIGNORE:
        return parse_tag_filter(o, "--tagignore", arg, true);
    case RP_OPT_SINCE:
        return parse_time_bound("--since", arg, &o->window.since);
    case RP_OPT_UNTIL:
        return parse_time_bound("--until", arg, &o->window.until);
    case RP_OPT_HIDE_IDLE:
        o->hide_idle = true;
        return 1;
    case RP_OPT_MY_CODE:
        o->my_code = true;
        return 1;
    case RP_OPT_MEASURE: {
        int m = rp_measure_parse(arg);
        if (m < 0)
            return rp_usage_error("--measure expects one of " RP_MEASURE_CHOICES ", got '%s'", arg), -1;
        o->measure = (rp_measure)m;
        return 1;
    }
    default:
        return 0;
    }
}
