/*
 * profile/timewin.h — selecting profile parts by time (--since, --until).
 *
 * Owns: the two bounds as given — an absolute time (YYYY-MM-DDTHH:MM:SS,
 * local, or followed by Z or +HH:MM / -HH:MM) or a duration back from the
 * end of the newest part read (30s, 10m, 2h, 1d) — resolving them, and
 * the rule: a part (any profile file) is kept when its stretch
 * [start, start + duration] overlaps the window. What was selected is
 * kept in the merged profile (rp_load_facts) for stat and report to say.
 */
#ifndef RPERF_PROFILE_TIMEWIN_H
#define RPERF_PROFILE_TIMEWIN_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"

typedef struct rp_time_bound {
    bool set;
    bool back; /* ns is a duration back from the newest part's end */
    int64_t ns; /* epoch ns, or the duration */
} rp_time_bound;

typedef struct rp_time_window {
    rp_time_bound since, until;
} rp_time_window;

/* Parses `arg` into `b`. Returns 0, or -1 when it is neither form. */
int rp_time_bound_parse(const char *arg, rp_time_bound *b);

static inline bool rp_time_window_active(const rp_time_window *w)
{
    return w->since.set || w->until.set;
}

/* Whether resolving needs the end of the newest part (a duration bound). */
static inline bool rp_time_window_needs_newest(const rp_time_window *w)
{
    return (w->since.set && w->since.back) || (w->until.set && w->until.back);
}

/* The window as epoch ns [*from, *to], given the newest part's end. */
void rp_time_window_resolve(const rp_time_window *w, int64_t newest_end_ns, int64_t *from,
                            int64_t *to);

/* Whether a part with this start and duration overlaps [from, to] (a
 * part that only touches it, ending as the window starts, does not). */
static inline bool rp_time_window_overlaps(int64_t from, int64_t to, int64_t start,
                                           int64_t duration)
{
    return start < to && start + duration > from;
}

/* "YYYY-MM-DD HH:MM:SS" (local time) of epoch ns `ns`, into `buf`. */
const char *rp_time_format(int64_t ns, char *buf, size_t size);

/* What stat and report say of a window: "2026-11-30 14:20:00 ..
 * 2026-11-30 14:25:00 (local time), 5 of 12 parts read". */
#define RP_WINDOW_TEXT_MAX 128
const char *rp_time_window_text(const rp_load_facts *f, char *buf, size_t size);

#endif
