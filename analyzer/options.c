/*
 * analyzer/options.c — the shared options. See options.h.
 */
#include "options.h"

#include <stdlib.h>
#include <string.h>

#include "commands.h"

void rp_options_init(rp_options *o)
{
    *o = (rp_options){.top = RP_REPORT_TOP_DEFAULT, .lines = false};
}

void rp_options_free(rp_options *o)
{
    for (int i = 0; i < o->tag_count; i++) {
        free(o->tags[i].key);
        regfree(&o->tags[i].re);
    }
    o->tag_count = 0;
}

/* KEY=REGEX or REGEX, as --tagfocus/--tagignore take it (like pprof's). */
static int parse_tag_filter(rp_options *o, const char *option, const char *arg, bool ignore)
{
    if (o->tag_count == RP_TAG_FILTERS_MAX)
        return rp_usage_error("%s: at most %d label filters", option, RP_TAG_FILTERS_MAX), -1;
    rp_tag_filter *f = &o->tags[o->tag_count];
    const char *eq = strchr(arg, '=');
    const char *pattern = eq && eq > arg ? eq + 1 : arg;
    f->key = eq && eq > arg ? strndup(arg, (size_t)(eq - arg)) : NULL;
    f->ignore = ignore;
    if (eq && eq > arg && !f->key)
        return rp_usage_error("%s: out of memory", option), -1;
    int rc = regcomp(&f->re, pattern, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char why[128];
        regerror(rc, &f->re, why, sizeof(why));
        free(f->key);
        return rp_usage_error("%s expects KEY=REGEX, got '%s': %s", option, arg, why), -1;
    }
    o->tag_count++;
    return 1;
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
        return rp_parse_count_option("--top", arg, &o->top) == 0 ? 1 : -1;
    case RP_OPT_LINES:
        o->lines = true;
        return 1;
    case RP_OPT_TAGFOCUS:
        return parse_tag_filter(o, "--tagfocus", arg, false);
    case RP_OPT_TAGIGNORE:
        return parse_tag_filter(o, "--tagignore", arg, true);
    case RP_OPT_SINCE:
        return parse_time_bound("--since", arg, &o->window.since);
    case RP_OPT_UNTIL:
        return parse_time_bound("--until", arg, &o->window.until);
    default:
        return 0;
    }
}
