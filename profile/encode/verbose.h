/*
 * profile/encode/verbose.h — the verbose summary (RPERF_VERBOSE=1,
 * Rperf.start(verbose: true)).
 *
 * Owns: the gem's verbose report: mode, frequency, sampling calls and
 * their cost, and the top frames by flat and cumulative time. The agent
 * prints it on stderr at exit, the Ruby API on $stderr at Rperf.stop; so
 * it is in the part of the library the agent's core links too.
 */
#ifndef RPERF_PROFILE_VERBOSE_H
#define RPERF_PROFILE_VERBOSE_H

#include <stddef.h>

#include "../../common/out.h"
#include "../profile.h"

/* Writes the summary of `p`; `thread_records` (0: not said) is how many
 * per-thread records the agent allocated. Returns 0, or -1 when out of
 * memory. */
int rp_verbose_write(const rp_profile *p, rp_out *out, size_t thread_records);

#endif
