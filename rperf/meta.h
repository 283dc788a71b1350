/*
 * rperf/meta.h — the profile's meta that the rperf command hands the agent.
 *
 * Owns: what the gem 0.11's command puts in a profile's "meta" before it
 * runs the program: git's view of the working directory (commit, branch,
 * subject, commit time, a dirty tree; GitHub Actions' GITHUB_SHA first) —
 * collected here, before the program runs, so that a program that
 * changes directory cannot point it at another repository — and the
 * labels of `--label KEY=VALUE`; both as the JSON objects the agent reads
 * from RPERF_META_GIT and RPERF_META_LABELS. And the snapshot file name of
 * `--snapshot-dir`: rperf-<sha7>-<UTC time>.json.gz, or
 * rperf-nogit-<UTC time>-<pid>.json.gz outside a repository.
 */
#ifndef RPERF_META_H
#define RPERF_META_H

#include <stddef.h>

/* The git object for RPERF_META_GIT (malloc'd), or "null" outside a
 * repository or without git. NULL when out of memory. */
char *rperf_meta_git(void);

/* {"KEY":"VALUE",...} of `count` KEY=VALUE words (malloc'd; a key given
 * twice keeps its last value), NULL when out of memory. Each has an '='
 * (checked by the caller). */
char *rperf_meta_labels(const char *const *labels, int count);

/* The snapshot file name for the commit in `git` (rperf_meta_git's
 * text), made now by process `pid`, into name[]. */
void rperf_meta_snapshot_name(const char *git, long pid, char *name, size_t size);

#endif
