/*
 * rperf/cmd_preload_path.c — `rperf preload-path`: where librperf-agent.so
 * is, for a program started some other way than `rperf record` (a
 * container's LD_PRELOAD, a systemd unit, a Procfile) to preload it:
 *
 *   LD_PRELOAD=$(bundle exec rperf preload-path) RPERF_ENABLED=0 bin/rails server
 *
 * The same agent `rperf record` preloads (RPERF_AGENT, or the one
 * installed beside this program), one line, nothing else on stdout.
 */
#include <stdio.h>
#include <string.h>

#include "subcommands.h"
#include "tools.h"

int rperf_cmd_preload_path(int argc, char **argv)
{
    if (argc > 1) {
        bool help = strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0;
        fprintf(help ? stdout : stderr, "Usage: rperf preload-path\n"
                                        "       Prints the path of librperf-agent.so, for LD_PRELOAD.\n");
        return help ? 0 : 1;
    }
    rperf_tools t;
    if (rperf_locate(&t) != 0)
        return 1;
    printf("%s\n", t.agent);
    if (strpbrk(t.agent, " \t:"))
        fprintf(stderr, "rperf: LD_PRELOAD splits paths at spaces and colons: link this one from a path "
                        "without them (ln -s), and preload the link\n");
    return 0;
}
