/*
 * agent/ext/session_parts.c — a session's parts held until read. See
 * session_parts.h.
 */
#include "session_parts.h"

#include "../../profile/merge.h"

static rp_profile held;    /* valid when held_count > 0 */
static size_t held_count;  /* parts merged into `held` */
static int64_t lost;       /* samples of parts that could not be held */

void rp_session_parts_reset(void)
{
    if (held_count)
        rp_profile_free(&held);
    held_count = 0;
    lost = 0;
}

/* `src` merged into `dst`, which holds `before` profiles. */
static int merge(rp_profile *dst, const rp_profile *src, size_t before)
{
    char err[RP_MERGE_ERROR_MAX];
    return rp_merge_into(dst, src, before, true, err);
}

void rp_session_parts_take(rp_profile *part)
{
    int64_t samples = part->meta.sampling_count;
    if (held_count == 0 && rp_profile_init(&held, part->samples.aggregate) != 0) {
        lost += samples;
    } else if (merge(&held, part, held_count) != 0) {
        /* held may hold some of it: it stays, as the rest did not come */
        lost += samples;
        held_count++;
    } else {
        held_count++;
    }
    rp_profile_free(part);
}

/* A session read as one profile, as it was recorded: one process, no
 * part of anything. */
static void as_one_session(rp_profile *p)
{
    p->meta.part = 0;
    p->meta.process_count = 1;
    p->meta.total_duration_ns = p->meta.duration_ns;
    p->meta.dropped_samples += lost;
}

int rp_session_parts_join(rp_profile *current, bool keep)
{
    if (held_count == 0) {
        current->meta.dropped_samples += lost;
        if (!keep)
            lost = 0;
        return 0;
    }
    /* the tables' part comes after the held ones: its counters are the
     * latest (merge.h) */
    current->meta.part = (int64_t)held_count + 1;
    rp_profile joined;
    if (!keep) {
        if (merge(&held, current, held_count) != 0)
            return -1;
        joined = held;
        held_count = 0;
    } else if (rp_profile_init(&joined, current->samples.aggregate) != 0 || merge(&joined, &held, 0) != 0 ||
               merge(&joined, current, 1) != 0) {
        rp_profile_free(&joined);
        return -1;
    }
    rp_profile_free(current);
    *current = joined;
    as_one_session(current);
    if (!keep)
        lost = 0;
    return 0;
}
