/*
 * rperf/subcommands.h — the subcommands of `rperf`, one cmd_<name>.c each
 * (as Linux perf's builtin-*.c), each given argv from its own name on.
 */
#ifndef RPERF_RPERF_SUBCOMMANDS_H
#define RPERF_RPERF_SUBCOMMANDS_H

int rperf_cmd_run(int argc, char **argv); /* record, stat, exec */
int rperf_cmd_report(int argc, char **argv);
int rperf_cmd_diff(int argc, char **argv);
int rperf_cmd_attach(int argc, char **argv);
int rperf_cmd_detach(int argc, char **argv);
int rperf_cmd_ctl(int argc, char **argv);
int rperf_cmd_preload_path(int argc, char **argv);

#endif
