/*
 * analyzer/options.h — the options every command that reads profiles takes.
 *
 * Owns: their values (rp_options), their getopt_long entries and their
 * parsing, once for all commands: a command lists its own options, then
 * RP_SHARED_OPTIONS, and passes what getopt_long returns to
 * rp_options_parse before handling its own. Later filters (label and time
 * selection) belong here too.
 */
#ifndef RPERF_ANALYZER_OPTIONS_H
#define RPERF_ANALYZER_OPTIONS_H

#include <getopt.h>
#include <regex.h>
#include <stdbool.h>

#include "../profile/timewin.h"

#define RP_REPORT_TOP_DEFAULT 50

/* --tagfocus / --tagignore KEY=REGEX (or REGEX: any label's value). */
typedef struct rp_tag_filter {
    char *key; /* NULL: any key */
    regex_t re;
    bool ignore; /* --tagignore */
} rp_tag_filter;

#define RP_TAG_FILTERS_MAX 16

typedef struct rp_options {
    int top;    /* rows of each text table (--top N) */
    bool lines; /* per line of code rather than per method (--lines) */
    rp_tag_filter tags[RP_TAG_FILTERS_MAX];
    int tag_count;
    rp_time_window window; /* --since / --until: which parts are read */
} rp_options;

/* getopt_long values of the shared options (above any character). */
enum { RP_OPT_TOP = 0x1000, RP_OPT_LINES, RP_OPT_TAGFOCUS, RP_OPT_TAGIGNORE, RP_OPT_SINCE,
       RP_OPT_UNTIL };

#define RP_SHARED_OPTIONS                                    \
    {"top", required_argument, NULL, RP_OPT_TOP},            \
    {"lines", no_argument, NULL, RP_OPT_LINES},              \
    {"tagfocus", required_argument, NULL, RP_OPT_TAGFOCUS},  \
    {"tagignore", required_argument, NULL, RP_OPT_TAGIGNORE},  \
    {"since", required_argument, NULL, RP_OPT_SINCE},          \
    {"until", required_argument, NULL, RP_OPT_UNTIL}

/* The text of the shared options for --help. */
#define RP_SHARED_OPTIONS_HELP                                                    \
    "  --top N                    rows per table of the text report (default 50)\n" \
    "  --lines                    one row per line of code rather than per method,\n" \
    "                             for profiles recorded with RPERF_LINES=1\n"          \
    "  --tagfocus KEY=REGEX       keep only samples whose label KEY (thread_seq too)\n" \
    "                             matches REGEX (REGEX alone: any label); repeatable,\n" \
    "                             every one must match\n"                             \
    "  --tagignore KEY=REGEX      drop samples whose label KEY matches; repeatable\n"  \
    "  --since TIME, --until TIME read only the parts (RPERF_INTERVAL files) that\n"  \
    "                             overlap the window: YYYY-MM-DDTHH:MM:SS (local, or\n" \
    "                             with Z or +HH:MM), or back from the newest part's\n"  \
    "                             end: 30s, 10m, 2h, 1d\n"

void rp_options_init(rp_options *o);
void rp_options_free(rp_options *o);

/* One option as getopt_long returned it (`c`, `arg`). Returns 1 when it
 * was a shared option, 0 when it is not one, -1 when its value is bad
 * (after a usage message; exit with RP_EXIT_USAGE). */
int rp_options_parse(rp_options *o, int c, const char *arg);

#endif
