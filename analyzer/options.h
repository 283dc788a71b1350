/*
 * analyzer/options.h — the options every command that reads profiles
 * takes, and how a command line is refused.
 *
 * Owns: their values (rp_options), their getopt_long entries and their
 * parsing, once for all commands: a command lists its own options, then
 * RP_SHARED_OPTIONS, and passes what getopt_long returns to
 * rp_options_parse before handling its own; and the usage error every
 * command prints for a bad command line.
 */
#ifndef RPERF_ANALYZER_OPTIONS_H
#define RPERF_ANALYZER_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>

#include "../profile/encode/encoder.h"
#include "../profile/filter.h"
#include "../profile/timewin.h"

typedef struct rp_options {
    rp_encode_opts encode; /* --top N: rows of each text table */
    bool lines;            /* per line of code rather than per method (--lines) */
    rp_tag_filters tags;   /* --tagfocus, --tagignore */
    rp_time_window window; /* --since / --until: which parts are read */
    rp_measure measure;    /* --measure: what the weights shown are */
    bool hide_idle;        /* --hide-idle: threads blocked all along left out */
    bool my_code;          /* --my-code: runs of library frames collapsed (my_code.h) */
} rp_options;

/* getopt_long values of the shared options (above any character). */
enum { RP_OPT_TOP = 0x1000, RP_OPT_LINES, RP_OPT_TAGFOCUS, RP_OPT_TAGIGNORE, RP_OPT_SINCE,
       RP_OPT_UNTIL, RP_OPT_MEASURE, RP_OPT_HIDE_IDLE, RP_OPT_MY_CODE };

#define RP_SHARED_OPTIONS                                    \
    {"top", required_argument, NULL, RP_OPT_TOP},            \
    {"lines", no_argument, NULL, RP_OPT_LINES},              \
    {"tagfocus", required_argument, NULL, RP_OPT_TAGFOCUS},  \
    {"tagignore", required_argument, NULL, RP_OPT_TAGIGNORE},  \
    {"since", required_argument, NULL, RP_OPT_SINCE},          \
    {"until", required_argument, NULL, RP_OPT_UNTIL},          \
    {"measure", required_argument, NULL, RP_OPT_MEASURE},      \
    {"hide-idle", no_argument, NULL, RP_OPT_HIDE_IDLE},        \
    {"my-code", no_argument, NULL, RP_OPT_MY_CODE}

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
    "                             end: 30s, 10m, 2h, 1d\n"                        \
    "  --measure M                what the weights are: time (default), alloc\n"   \
    "                             (allocated objects), retained (objects alive at\n" \
    "                             the end), retained-bytes; or pprof's names\n"    \
    "                             alloc_objects, inuse_objects, inuse_space (for\n"  \
    "                             profiles recorded with RPERF_ALLOC=N)\n"        \
    "  --hide-idle                leave out idle threads: those that spent 99% or\n" \
    "                             more of their time off the GVL (%GVL=blocked:\n"  \
    "                             waiting for work, I/O or a timer; wall mode), and\n" \
    "                             say how much time that was\n"                 \
    "  --my-code                  the application's code first: each run of frames\n" \
    "                             of a gem, of Ruby's own library or of the VM is one\n" \
    "                             frame named for it, e.g. [actionpack 8.1.4.1]\n"

void rp_options_init(rp_options *o);
void rp_options_free(rp_options *o);

/* One option as getopt_long returned it (`c`, `arg`). Returns 1 when it
 * was a shared option, 0 when it is not one, -1 when its value is bad
 * (after a usage message; exit with RP_EXIT_USAGE). */
int rp_options_parse(rp_options *o, int c, const char *arg);

/* Parses a non-negative integer option value; prints a usage error naming
 * `option` and returns -1 when `text` is not one. */
int rp_parse_count_option(const char *option, const char *text, int *out);

/* Prints the error and "try 'rperf-analyze --help'"; returns
 * RP_EXIT_USAGE. */
int rp_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
