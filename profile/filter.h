/*
 * profile/filter.h — selecting samples by their labels.
 *
 * Owns: --tagfocus and --tagignore (as go tool pprof's options do): a
 * filter matches a sample when its label KEY (or, without a key, any of
 * its labels) has a value matching a regular expression; thread_seq is a
 * key too. A sample is kept when every focus filter matches and no ignore
 * filter does. And --hide-idle: leaving out the threads that spent the
 * recording off the GVL, and threads waiting for work between requests.
 * Selection by time is loading's (load.h), as is
 * the choice between per-line and per-method frames.
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

/* What --hide-idle left out. */
typedef struct rp_idle_threads {
    size_t threads, of_threads; /* idle threads, and threads in all */
    int64_t weight;             /* their time (time measure) */
    int64_t waiting_weight;     /* busy threads' time waiting outside requests */
} rp_idle_threads;

/* Whether label set `set` of `p` is a request's or a job's: every ended
 * one's samples carry %latency, a slow one's %span too. */
bool rp_label_set_in_request(const rp_profile *p, uint32_t set);
/* Whether some label set of `p` is. */
bool rp_profile_has_requests_labels(const rp_profile *p);

/* Where a server's thread waits for work: in a profile that records
 * requests (%latency labels), a sample outside any request whose innermost
 * frame is one of these methods is idle too (a pool thread between
 * requests, a reactor, a sleeping master). The viewer reads the list from
 * the page. NULL-terminated. */
extern const char *const rp_idle_wait_methods[];
bool rp_is_idle_wait(const char *label);

/* An idle thread spent at least this share of its time off the GVL
 * (%GVL=blocked: an idle worker, a thread waiting for I/O or a timer);
 * the viewer's switch counts them the same way. */
#define RP_IDLE_BLOCKED_SHARE 0.99

/* --hide-idle: leaves the samples of idle threads (each process's threads
 * apart) out of every measure, as their time says, and with requests
 * recorded the samples waiting for work outside them (above). Returns 0 with what it
 * left out in *out, or -1 after an error line (out of memory). */
int rp_filter_idle_threads(rp_profile *p, rp_idle_threads *out);

#endif
