/*
 * profile/merge.h — merging the profiles of many processes into one.
 *
 * Owns: re-interning one process's strings, frames, stacks and label sets
 * into the session profile, summing counters, keeping the longest
 * duration, and choosing whose process facts (command, GC, OS) the merged
 * profile carries: the root's, i.e. the process that started first — its
 * counters from its part that ends last, when it was recorded in parts.
 *
 * A merge has two steps. Preparing interns the tables of `src` into `dst`
 * and keeps its samples and facts, now in dst's ids, apart; committing
 * adds them. The loader prepares every file as it is read and commits it
 * when it knows the file is wanted: at once, or — with a time window
 * counted back from the newest file's end — once every file has been read,
 * so that no file is read twice.
 */
#ifndef RPERF_PROFILE_MERGE_H
#define RPERF_PROFILE_MERGE_H

#include "profile.h"

#define RP_MERGE_ERROR_MAX 256

/* One file's share of a merge, in dst's ids, prepared and not yet added. */
typedef struct rp_merge_pending {
    rp_meta meta;        /* its facts (string ids and command are dst's) */
    rp_sample *samples[RP_MEASURES]; /* by measure; stack and label set ids are dst's */
    size_t counts[RP_MEASURES];
    int64_t *times; /* raw time samples' times (Unix ns; 0: not said), or NULL */
    rp_requests requests;            /* its requests, names in dst's ids */
} rp_merge_pending;

/* Interns the tables of `src` into `dst` and fills `out` (freed with
 * rp_merge_pending_free in every case). With `keep_lines` a frame stays one
 * per line as read; without, the lines of one method become one frame.
 * Returns 0, or -1 when out of memory (dst's tables may then hold part of
 * src: unused, but discard dst if it matters). */
int rp_merge_prepare(rp_profile *dst, const rp_profile *src, bool keep_lines,
                     rp_merge_pending *out);

/* Adds what `pending` holds to `dst`, which holds `merged_before` profiles
 * (0 for the first); with `key` (and `value`), every sample is labelled
 * key=value too (a label src's sets do not have). Returns 0, or -1 with a
 * message in err (dst may then hold part of it and should be discarded). */
int rp_merge_commit(rp_profile *dst, const rp_merge_pending *pending, size_t merged_before,
                    const char *key, const char *value, char err[RP_MERGE_ERROR_MAX]);

/* Adds `count` samples of measure `m` (in dst's ids, as a pending's) to
 * `dst` and nothing else, labelled key=value as rp_merge_commit does: what
 * a commit left out, once it is known to be wanted. Returns 0, or -1 with
 * a message in err. */
int rp_merge_add_measure(rp_profile *dst, rp_measure m, const rp_sample *samples, size_t count,
                         const char *key, const char *value, char err[RP_MERGE_ERROR_MAX]);

void rp_merge_pending_free(rp_merge_pending *pending);

/* Both steps at once. */
int rp_merge_into(rp_profile *dst, const rp_profile *src, size_t merged_before, bool keep_lines,
                  char err[RP_MERGE_ERROR_MAX]);

#endif
