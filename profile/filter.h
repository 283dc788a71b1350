/*
 * profile/filter.h — selecting samples by their labels.
 *
 * Owns: --tagfocus and --tagignore (as go tool pprof's options do): a
 * filter matches a sample when its label KEY (or, without a key, any of
 * its labels) has a value matching a regular expression; thread_seq is a
 * key too. A sample is kept when every focus filter matches and no ignore
 * filter does. Selection by time is loading's (load.h), as is the choice
 * between per-line and per-method frames.
 */
#ifndef RPERF_PROFILE_FILTER_H
#define RPERF_PROFILE_FILTER_H

#include <regex.h>
#include <stdbool.h>

#include "profile.h"

#define RP_TAG_FILTERS_MAX 16

/* --tagfocus / --tagignore KEY=REGEX (or REGEX: any label's value). */
typedef struct rp_tag_filter {
    char *key; /* NULL: any key */
    regex_t re;
    bool ignore; /* --tagignore */
} rp_tag_filter;

typedef struct rp_tag_filters {
    rp_tag_filter items[RP_TAG_FILTERS_MAX];
    int count;
} rp_tag_filters;

/* Parses KEY=REGEX or REGEX into a new filter of `f`. Returns 0, or -1
 * with the reason in why[size] (too many filters, a bad expression, out
 * of memory). */
int rp_tag_filters_add(rp_tag_filters *f, const char *arg, bool ignore, char *why, size_t size);
void rp_tag_filters_free(rp_tag_filters *f);

/* Keeps only the samples of `p` that `f` selects. Returns 0, or -1 after
 * an error line (out of memory; `p` is then unchanged). */
int rp_filter_apply(rp_profile *p, const rp_tag_filters *f);

#endif
