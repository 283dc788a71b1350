/*
 * analyzer/commands.h — the subcommands of rperf-analyze.
 *
 * Owns: the table of subcommands; each lives in its own cmd_<name>.c and
 * receives argv starting at its own name (as in perf's builtin-*.c).
 */
#ifndef RPERF_ANALYZER_COMMANDS_H
#define RPERF_ANALYZER_COMMANDS_H

#define RP_EXIT_OK 0
#define RP_EXIT_FAILURE 1 /* input could not be analyzed */
#define RP_EXIT_USAGE 2   /* bad command line */

int cmd_report(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_diff(int argc, char **argv);

/* Parses a non-negative integer option value; prints a usage error naming
 * `option` and returns -1 when `text` is not one. */
int rp_parse_count_option(const char *option, const char *text, int *out);

/* Prints "try 'rperf-analyze --help'" after a usage error; returns
 * RP_EXIT_USAGE. */
int rp_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
