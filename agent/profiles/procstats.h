/*
 * agent/profiles/procstats.h — facts about the profiled process for `stat`.
 *
 * Owns: collecting the command line, the working directory at start, Ruby
 * version, GC counters, YJIT ratio, and the OS counters (rusage, /proc/self/io) into profile
 * metadata.
 */
#ifndef RPERF_AGENT_PROCSTATS_H
#define RPERF_AGENT_PROCSTATS_H

#include "../../profile/profile.h"

/* Main thread at start: remembers argv (/proc/self/cmdline) before Ruby can
 * overwrite it through $0, and the working directory before the program
 * can change it (relative source paths are relative to it). */
void rp_procstats_capture_command(void);

/* GVL held, at exit: fills command, cwd, ruby_version, gc, yjit, os,
 * user/sys into `p`. */
void rp_procstats_fill(rp_profile *p);

#endif
