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
int cmd_growth(int argc, char **argv);
int cmd_requests(int argc, char **argv);

#endif
