/*
 * analyzer/main.c — rperf-analyze: entry point and subcommand dispatch.
 *
 * Owns: --help, --version, and handing argv to the subcommand.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/schema.h"
#include "commands.h"

static const char usage_text[] =
    "usage: rperf-analyze <command> [options] PATH...\n"
    "\n"
    "PATH is a session directory (every profile file in it is read) or a\n"
    "profile file (.json.gz or .json). All inputs are merged into one profile.\n"
    "\n"
    "commands:\n"
    "  stat [--report] PATH...    summary like `rperf stat`: user/sys/real, time by\n"
    "                             state (CPU, GVL blocked/wait, GC), Ruby and OS\n"
    "                             counters, overhead; --report adds the top-50 tables\n"
    "  report [--top N] [--lines] PATH...\n"
    "                             text report: total, flat and cumulative tables\n"
    "                             (--top: rows per table, default 50; --lines: one\n"
    "                             row per line of code, for profiles recorded with\n"
    "                             RPERF_LINES=1)\n"
    "  convert FORMAT [-o OUT] [--top N] [--lines] PATH...\n"
    "                             FORMAT: --pprof (gzip-compressed profile.proto),\n"
    "                             --collapsed (FlameGraph/speedscope), --text, --json\n"
    "                             (one merged profile), or --format NAME. Without a\n"
    "                             format the extension of OUT decides: .pb.gz pprof,\n"
    "                             .collapsed, .txt, .json or .json.gz; other: pprof.\n"
    "                             Without -o the output goes to stdout (pprof refuses\n"
    "                             a terminal). pprof and json keep the lines a profile\n"
    "                             has; --lines makes text and collapsed per line too.\n"
    "\n"
    "options:\n"
    "  -h, --help                 show this help\n"
    "  -V, --version              show the version\n";

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
    {"stat", cmd_stat},
    {"report", cmd_report},
    {"convert", cmd_convert},
};

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

int main(int argc, char **argv)
{
    if (argc < 2)
        return rp_usage_error("missing command");
    const char *name = argv[1];
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "help") == 0) {
        fputs(usage_text, stdout);
        return RP_EXIT_OK;
    }
    if (strcmp(name, "-V") == 0 || strcmp(name, "--version") == 0) {
        printf("rperf-analyze %s\n", RP_VERSION);
        return RP_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(name, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    return rp_usage_error("unknown command '%s'", name);
}
