/*
 * profile/merge.h — merging the profiles of many processes into one.
 *
 * Owns: re-interning one process's strings, frames, stacks and label sets
 * into the session profile, summing counters, keeping the longest
 * duration, and choosing whose process facts (command, GC, OS) the merged
 * profile carries: the root's, i.e. the process that started first.
 */
#ifndef RPERF_ANALYZER_MERGE_H
#define RPERF_ANALYZER_MERGE_H

#include "profile.h"

#define RP_MERGE_ERROR_MAX 256

/* Adds `src` to `dst`; `merged_before` says how many profiles dst already
 * holds (0 for the first). With `keep_lines` a frame stays one per line as
 * read; without, the lines of one method become one frame. Returns 0, or -1 with a message in err (dst may
 * then hold part of src and should be discarded). */
int rp_merge_into(rp_profile *dst, const rp_profile *src, size_t merged_before, bool keep_lines,
                  char err[RP_MERGE_ERROR_MAX]);

/* rp_merge_into, every sample of `src` also labelled key=value (a label
 * src's sets do not have). */
int rp_merge_into_labelled(rp_profile *dst, const rp_profile *src, size_t merged_before,
                           bool keep_lines, const char *key, const char *value,
                           char err[RP_MERGE_ERROR_MAX]);

#endif
