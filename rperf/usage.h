/*
 * rperf/usage.h — what `rperf` says about its own command line.
 *
 * Owns: each subcommand's usage (the words of the rperf gem's command),
 * the usage error (the message, then the usage, on stderr: status 1, as
 * the gem's) and the one-line errors that point at `rperf help`.
 */
#ifndef RPERF_RPERF_USAGE_H
#define RPERF_RPERF_USAGE_H

#include <stdbool.h>
#include <stdio.h>

typedef void rperf_usage_fn(FILE *out);

rperf_usage_fn rperf_usage, rperf_attach_usage, rperf_ctl_usage, rperf_report_usage, rperf_diff_usage,
    rperf_record_usage, rperf_stat_usage, rperf_exec_usage;

/* The message (printf-style), then `usage`, on stderr. Returns 1. */
int rperf_usage_error(rperf_usage_fn *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "rperf: MESSAGE" and "Try 'rperf help' ..." on stderr. Returns 1. */
int rperf_die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
