/*
 * agent/verbose.h — the RPERF_VERBOSE=1 summary on stderr at exit.
 *
 * Owns: the gem's verbose report: mode, frequency, sampling calls and
 * their cost, and the top frames by flat and cumulative time.
 */
#ifndef RPERF_AGENT_VERBOSE_H
#define RPERF_AGENT_VERBOSE_H

#include "../profile/profile.h"

#include <stddef.h>

/* End of profiling: prints the summary of `p`; `thread_records` is how many
 * per-thread records the agent allocated. */
void rp_verbose_print(const rp_profile *p, size_t thread_records);

#endif
