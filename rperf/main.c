/*
 * rperf/main.c — `rperf`, the perf-like front end: entry point and
 * subcommand dispatch.
 *
 * Owns: -h, -v, `rperf help` (the manual, manual.txt, compiled in), and
 * handing argv to the subcommand (subcommands.h). What the subcommands
 * render — stat summaries, reports, diffs, pages — is rperf-analyze's own
 * code (analyzer/commands.h), run in this process.
 */
#include <stdio.h>
#include <string.h>

#include "manual.h"
#include "subcommands.h"
#include "usage.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} subcommands[] = {
    {"record", rperf_cmd_run}, {"stat", rperf_cmd_run},     {"exec", rperf_cmd_run},
    {"report", rperf_cmd_report}, {"diff", rperf_cmd_diff},   {"attach", rperf_cmd_attach},
    {"detach", rperf_cmd_detach}, {"ctl", rperf_cmd_ctl},     {"preload-path", rperf_cmd_preload_path},
};

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "";
    for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
        if (strcmp(name, subcommands[i].name) == 0)
            return subcommands[i].run(argc - 1, argv + 1);
    if (strcmp(name, "help") == 0) {
        fwrite(rperf_manual, 1, rperf_manual_len, stdout);
        return 0;
    }
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
        rperf_usage(stdout);
        printf("\nRun 'rperf help' for full documentation\n");
        return 0;
    }
    if (strcmp(name, "-v") == 0 || strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        printf("rperf %s\n", RP_VERSION);
        return 0;
    }
    if (!*name) {
        rperf_usage(stderr);
        return 1;
    }
    fprintf(stderr, "Unknown subcommand: \"%s\"\n", name);
    rperf_usage(stderr);
    return 1;
}
