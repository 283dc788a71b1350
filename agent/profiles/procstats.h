/*
 * agent/profiles/procstats.h — facts about the profiled process for `stat`.
 *
 * Owns: collecting the command line, the working directory at start, Ruby
 * version, GC counters, YJIT ratio, and the OS counters (rusage, /proc/self/io) into profile
 * metadata; and the gem 0.11's meta: the host, the commit and the labels
 * (RPERF_META_GIT, RPERF_META_LABELS, config.h).
 */
#ifndef RPERF_AGENT_PROCSTATS_H
#define RPERF_AGENT_PROCSTATS_H

#include "../../profile/profile.h"

/* Main thread at start: remembers argv (/proc/self/cmdline) before Ruby can
 * overwrite it through $0, and the working directory before the program
 * can change it (relative source paths are relative to it). */
void rp_procstats_capture_command(void);

/* Main thread at start: the meta's commit and labels as the configuration
 * read them (JSON objects, "" for none); kept until the process ends. */
void rp_procstats_set_meta(const char *git, const char *labels);

/* GVL held, at exit: fills command, cwd, ruby_version, gc, yjit, os,
 * user/sys and the meta into `p`. */
void rp_procstats_fill(rp_profile *p);

/* The meta alone: hostname, git, labels (Rperf.save of a Hash). */
void rp_procstats_fill_meta(rp_profile *p);

#endif
