/*
 * rperf/options.h — reading `rperf`'s options, as the gem's command spells
 * them: "-o X", "--output X" and "--output=X".
 */
#ifndef RPERF_RPERF_OPTIONS_H
#define RPERF_RPERF_OPTIONS_H

#include <stdbool.h>

#include "usage.h"

/* An option with a value, named `shrt` (NULL: none) or `lng`, at
 * argv[*i]: its value into *value (*i past it) and 1; 0 when argv[*i] is
 * not this option; -1 when its value is missing ("missing argument: X"
 * and `usage` printed). */
int rperf_opt_value(int argc, char **argv, int *i, const char *shrt, const char *lng, const char **value,
                    rperf_usage_fn *usage);

/* argv[*i] is the flag `shrt` (NULL: none) or `lng`. */
bool rperf_opt_flag(const char *arg, const char *shrt, const char *lng);

/* --alloc (the default rate) or --alloc=N, into *value. */
bool rperf_opt_alloc(const char *arg, const char **value);

/* rperf-analyze's selections, which report and diff pass on: --tagfocus,
 * --tagignore, --since, --until, --measure (with a value) and --hide-idle,
 * --lines, --my-code. argv[*i] appended to passed[] (*n of `max` used; the value
 * too): 1; 0 when it is none of them; -1 after a usage error. */
int rperf_opt_selection(int argc, char **argv, int *i, const char **passed, int *n, int max,
                        rperf_usage_fn *usage);

#endif
