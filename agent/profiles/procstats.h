/*
 * agent/profiles/procstats.h — facts about the profiled process for `stat`.
 *
 * Owns: collecting the command line, Ruby version, GC counters, YJIT
 * ratio, and the OS counters (rusage, /proc/self/io) into profile
 * metadata.
 */
#ifndef RPERF_AGENT_PROCSTATS_H
#define RPERF_AGENT_PROCSTATS_H

#include "../../profile/profile.h"

/* Main thread at start: remembers argv (/proc/self/cmdline) before Ruby can
 * overwrite it through $0. */
void rp_procstats_capture_command(void);

/* GVL held, at exit: fills command, ruby_version, gc, yjit, os, user/sys
 * into `p`. */
void rp_procstats_fill(rp_profile *p);

#endif
