/*
 * analyzer/diff_check.h — `rperf-analyze diff --check PCT BASE TARGET`: the
 * regression gate (cmd_diff.c reads its command line).
 *
 * Owns: each side's runs, as given: a profile file is one run; a
 * directory of directories, one run per subdirectory (a session each);
 * a directory of profile files, one run per file — unless they are the
 * agent's own session files (profile-PID-N.json.gz), which make one run
 * together; their loading, one run at a time, and the verdict (regress.h)
 * on stdout, as text or JSON.
 */
#ifndef RPERF_ANALYZER_DIFF_CHECK_H
#define RPERF_ANALYZER_DIFF_CHECK_H

#include <stdbool.h>

#include "options.h"

/* Returns 1 when a method regressed, 0 when none did, RP_EXIT_FAILURE
 * when a run could not be read (said). */
int rp_diff_check(char **base, int base_count, char **target, int target_count, double pct, bool json,
                  const rp_options *o);

#endif
