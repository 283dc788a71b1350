/*
 * analyzer/options.c — the shared options. See options.h.
 */
#include "options.h"

#include "commands.h"

void rp_options_init(rp_options *o)
{
    *o = (rp_options){.top = RP_REPORT_TOP_DEFAULT, .lines = false};
}

int rp_options_parse(rp_options *o, int c, const char *arg)
{
    switch (c) {
    case RP_OPT_TOP:
        return rp_parse_count_option("--top", arg, &o->top) == 0 ? 1 : -1;
    case RP_OPT_LINES:
        o->lines = true;
        return 1;
    default:
        return 0;
    }
}
