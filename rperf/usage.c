/*
 * rperf/usage.c — what `rperf` says about its own command line. See
 * usage.h.
 */
#include "usage.h"

#include <stdarg.h>
#include <string.h>

void rperf_usage(FILE *out)
{
    fputs("Usage: rperf record [options] command [args...]\n"
          "       rperf stat [options] command [args...]\n"
          "       rperf exec [options] command [args...]\n"
          "       rperf report [options] [file]\n"
          "       rperf diff [options] base target\n"
          "       rperf attach [options] pid\n"
          "       rperf detach pid\n"
          "       rperf ctl pid start|stop|snapshot|status [options]\n"
          "       rperf preload-path\n"
          "       rperf help\n",
          out);
}

void rperf_attach_usage(FILE *out)
{
    fputs("Usage: rperf attach [options] pid\n"
          "       Loads the agent into a running Ruby 3.4 process (or uses the one it\n"
          "       preloads), records, writes the profile, and leaves the process as it\n"
          "       was, the agent dormant in it.\n"
          "    -d, --duration SECONDS           Record for SECONDS (default: until Ctrl-C,\n"
          "                                     `rperf detach PID`, or the process's exit)\n"
          "    -m, --mode MODE                  Profiling mode: cpu or wall (default: cpu)\n"
          "    -f, --frequency HZ               Sampling frequency in Hz, 1..10000 (default: 1000)\n"
          "        --alloc[=N]                  Sample one allocation in N (default 128)\n"
          "    -o, --output PATH                Output file (default: rperf.json.gz)\n"
          "        --format FORMAT              Output format: json, pprof, collapsed, text, html or\n"
          "                                     speedscope (default: from the output's extension)\n"
          "    -v, --verbose                    Say how long the process's thread was stopped\n"
          "    -h, --help                       Show this help\n",
          out);
}

void rperf_ctl_usage(FILE *out)
{
    fputs("Usage: rperf ctl pid start [-m MODE] [-f HZ] [--alloc[=N]]\n"
          "       rperf ctl pid stop [-o OUTPUT] [--format FORMAT]\n"
          "       rperf ctl pid snapshot [-o OUTPUT] [--format FORMAT]\n"
          "       rperf ctl pid status\n"
          "       Controls the agent inside a process (preloaded, e.g. with RPERF_ENABLED=0,\n"
          "       or loaded by rperf attach): start a whole-process recording, stop it and\n"
          "       write its profile (default rperf.json.gz), write the profile so far while\n"
          "       it goes on, or say what the agent is doing. No signal of the program's\n"
          "       is used; only a user allowed to trace the process may control it.\n",
          out);
}

/* The options of record, stat and exec (rperf SUBCOMMAND -h). */
static void run_usage(FILE *out, const char *cmd)
{
    bool record = strcmp(cmd, "record") == 0;
    fprintf(out, "Usage: rperf %s [options] command [args...]\n", cmd);
    fprintf(out, "    -o, --output PATH                Output file (default: %s)\n",
            record ? "rperf.json.gz" : "none");
    fputs("    -f, --frequency HZ               Sampling frequency in Hz, 1..10000 (default: 1000)\n", out);
    if (record)
        fputs("    -m, --mode MODE                  Profiling mode: cpu or wall (default: cpu)\n"
              "        --format FORMAT              Output format: json, pprof, collapsed, text, html or\n"
              "                                     speedscope (default: from the output's extension)\n"
              "    -p, --print                      Print the text profile to stdout\n",
              out);
    else
        fputs("    -m, --mode MODE                  Profiling mode: cpu or wall (default: wall)\n", out);
    if (strcmp(cmd, "stat") == 0)
        fputs("        --report                     Include flat/cumulative profile tables in the output\n", out);
    fputs("        --signal VALUE               Timer signal: a real-time signal number, or false\n"
          "                                     for a sleeping timer thread\n"
          "        --no-inherit                 Do not profile forked/spawned child processes\n"
          "        --no-aggregate               Keep one record per sample (raw samples)\n"
          "        --lines                      Record the line of every frame\n"
          "        --defer                      Sample only inside Rperf.profile blocks\n"
          "        --interval SECONDS           Every process writes a part every SECONDS\n"
          "        --alloc[=N]                  Sample one allocation in N (default 128): where\n"
          "                                     objects are allocated and which stay alive;\n"
          "                                     --alloc=window: only in 10 ms windows about\n"
          "                                     every second (always-on, for production)\n"
          "        --keep                       Keep the session directory (its path is printed)\n"
          "        --label KEY=VALUE            Add a label to the profile's meta (repeatable)\n",
          out);
    if (strcmp(cmd, "record") == 0)
        fputs("        --snapshot-dir DIR           Save as DIR/rperf-<sha7>-<timestamp>.json.gz\n"
              "                                     (rperf-nogit-<timestamp>-<pid>.json.gz outside git)\n"
              "        --print-env                  Print the environment (export lines) a command\n"
              "                                     is profiled in, and run nothing; -o DIR: the\n"
              "                                     session directory (default ./rperf-session)\n",
              out);
    fputs("    -v, --verbose                    Print sampling statistics to stderr\n"
          "    -h, --help                       Show this help\n"
          "\n"
          "Run 'rperf help' for full documentation (modes, formats, diagnostics guide, etc.)\n",
          out);
}

void rperf_record_usage(FILE *out)
{
    run_usage(out, "record");
}

void rperf_stat_usage(FILE *out)
{
    run_usage(out, "stat");
}

void rperf_exec_usage(FILE *out)
{
    run_usage(out, "exec");
}

void rperf_report_usage(FILE *out)
{
    fputs("Usage: rperf report [options] [file]\n"
          "       Opens the viewer of a profile (file or session directory) in a browser,\n"
          "       or prints the page's path when there is no display. Default file:\n"
          "       rperf.json.gz; pprof files (.pb.gz) are read too. A directory of\n"
          "       snapshots (rperf record --snapshot-dir) is served with its history page:\n"
          "       the snapshots by branch, any two compared, a method's share across them.\n"
          "        --top                        Print top functions by flat time\n"
          "        --text                       Print text report\n"
          "        --html                       Output the HTML viewer to stdout\n"
          "        --format FORMAT              Flat table for tools and language models:\n"
          "                                     'table' (TSV) or 'table-json' (JSON)\n"
          "        --port PORT                  Serve the viewer over HTTP on PORT (1..65535) until\n"
          "                                     Ctrl-C, rather than open it: for SSH port forwarding\n"
          "        --host HOST                  The address to serve it on (default: localhost;\n"
          "                                     0.0.0.0: every interface, with no authentication)\n"
          "        --allow-host NAME            A name the server answers to besides its own (a\n"
          "                                     request naming another Host is refused: 403)\n"
          "        --lines                      One row per line of code (profiles with lines)\n"
          "        --tagfocus KEY=REGEX         Only the samples whose label KEY matches (repeatable)\n"
          "        --tagignore KEY=REGEX        Leave out the samples whose label KEY matches\n"
          "        --hide-idle                  Leave out the threads idle all along (wall mode)\n"
          "        --my-code                    Each run of gem, Ruby library or VM frames as one\n"
          "                                     frame named for it: the application's code first\n"
          "        --since TIME, --until TIME   Only the parts that overlap the window\n"
          "        --measure M                  time, alloc, retained or retained-bytes\n"
          "    -h, --help                       Show this help\n",
          out);
}

void rperf_diff_usage(FILE *out)
{
    fputs("Usage: rperf diff [options] base target\n"
          "       Compare two profiles (shows target - base): files (.json.gz, .pb.gz)\n"
          "       or session directories.\n"
          "        --top                        Print top functions by diff\n"
          "        --text                       Print text diff report (the default)\n"
          "        --html                       Open the differential flame graph (-o OUT: write it)\n"
          "        --format FORMAT              Flat diff table for tools and language models:\n"
          "                                     'table' (TSV) or 'table-json' (JSON)\n"
          "        --normalize                  Compare shares of each side's total, not times\n"
          "        --check PCT                  Fail (status 1) when a method's self time per run\n"
          "                                     grew by more than PCT%, significantly (several\n"
          "                                     runs per side: a directory with one run each)\n"
          "        --json                       The --check verdict as JSON\n"
          "        --tagfocus, --tagignore, --since, --until, --measure, --hide-idle, --lines,\n"
          "        --my-code                    rperf-analyze's selections, on both sides\n"
          "    -o, --output PATH                Write the report or page to PATH\n"
          "    -h, --help                       Show this help\n",
          out);
}

int rperf_usage_error(rperf_usage_fn *usage, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    usage(stderr);
    return 1;
}

int rperf_die_usage(const char *fmt, ...)
{
    va_list ap;
    fputs("rperf: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'rperf help' for more information.\n", stderr);
    return 1;
}
