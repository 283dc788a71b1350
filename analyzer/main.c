/*
 * analyzer/main.c — rperf-analyze: entry point and subcommand dispatch.
 *
 * Owns: --help, --version, and handing argv to the subcommand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../profile/schema.h"
#include "commands.h"
#include "../profile/encode/format.h"
#include "options.h"

static const char usage_commands[] =
    "usage: rperf-analyze <command> [options] PATH...\n"
    "\n"
    "PATH is a session directory (every profile file in it is read) or a\n"
    "profile file (.json.gz or .json, or pprof's .pb.gz). All inputs are merged into\n"
    "one profile.\n"
    "\n"
    "commands:\n"
    "  stat [--report] PATH...    summary like `rperf stat`: user/sys/real, time by\n"
    "                             state (CPU, GVL blocked/wait, GC), Ruby and OS\n"
    "                             counters, overhead; --report adds the top-50 tables\n"
    "  report [--by KEY|--timeline] PATH...\n"
    "                             text report: total, flat and cumulative tables;\n"
    "                             --by KEY: the time per value of label KEY instead;\n"
    "                             --timeline: one row per part (RPERF_INTERVAL) in\n"
    "                             time order, with its heaviest method\n"
    "  growth [--json] PATH...    the allocation sites whose retained objects grow\n"
    "                             part after part (RPERF_INTERVAL with RPERF_ALLOC):\n"
    "                             objects per minute, first and last part\n"
    "  requests [--slowest N|--json] [--endpoint REGEX] PATH...\n"
    "                             per endpoint of the requests and jobs recorded\n"
    "                             (Rperf::RackMiddleware, Sidekiq, ActiveJob,\n"
    "                             Rperf.request): count, p50/p90/p99/max, and the\n"
    "                             share of queue, CPU, GVL wait, blocked, GC and\n"
    "                             other (on no core);\n"
    "                             --slowest N: the slowest ones kept, one by one\n"
    "  convert FORMAT [-o OUT] [--no-source] PATH...\n"
    "                             FORMAT is --NAME or --format NAME. Without one the\n"
    "                             extension of OUT decides (any other: pprof). Without\n"
    "                             -o the output goes to stdout (binary formats refuse\n"
    "                             a terminal). pprof, json and html keep the lines a\n"
    "                             profile has (the page shows methods, or lines at a\n"
    "                             click; with --lines at first); --lines makes the\n"
    "                             others per line too. The page embeds the sources\n"
    "                             of a line-level profile's files, unless --no-source.\n"
    "\n"
    "formats:\n";

static const char usage_options[] =
    "\n"
    "options of every command:\n" RP_SHARED_OPTIONS_HELP
    "  -h, --help                 show this help\n"
    "  -V, --version              show the version\n";

/* The formats are listed from their table (format.c). */
static void print_usage(void)
{
    fputs(usage_commands, stdout);
    for (size_t i = 0; i < rp_format_count; i++) {
        const rp_format *f = &rp_formats[i];
        char extensions[64] = "";
        for (const char *const *ext = f->extensions; *ext; ext++)
            snprintf(extensions + strlen(extensions), sizeof(extensions) - strlen(extensions),
                     "%s%s", ext == f->extensions ? "" : ", ", *ext);
        printf("  --%-10s %-16s %s\n", f->name, extensions, f->help);
    }
    fputs(usage_options, stdout);
}

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
    {"stat", cmd_stat},
    {"report", cmd_report},
    {"convert", cmd_convert},
    {"diff", cmd_diff},
    {"growth", cmd_growth},
    {"requests", cmd_requests},
};

int main(int argc, char **argv)
{
    if (argc < 2)
        return rp_usage_error("missing command");
    const char *name = argv[1];
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "help") == 0) {
        print_usage();
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
