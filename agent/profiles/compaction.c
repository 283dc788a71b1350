/*
 * agent/profiles/compaction.c — the label store kept to the sets in use.
 * See compaction.h.
 */
#include "compaction.h"

#include <stdint.h>

#include "../allocations/allocations.h"
#include "../base/recording.h"
#include "../requests/spans.h"
#include "../sampling/aggregator.h"
#include "../sampling/labels.h"
#include "../vm/threads.h"

static void carry_thread_labels(rp_thread *t, void *unused)
{
    (void)unused;
    t->label_set = rp_labels_carry(t->label_set);
}

/* GVL held, tables held and the whole profile's empty: the label store
 * keeps only the sets still in use, so labels made per request do not
 * pile up (labels.h). Everything that holds a set id carries it: threads,
 * the keys of the objects followed since earlier parts, open requests,
 * and the tables of a session open meanwhile (an API session, rperf
 * attach or ctl), which so stay bounded as the parts are. */
static uint32_t sets_after_compaction; /* the store's sets after the last one */

void rp_compact_labels(void)
{
    if (rp_labels_compact_begin() != 0)
        return;
    rp_threads_each(carry_thread_labels, NULL);
    rp_allocs_carry_labels();
    rp_spans_carry_labels();
    for (int r = 0; r < RP_RECORDINGS; r++)
        if (rp_recording_get((rp_rec_id)r)->open)
            rp_aggregator_carry_labels((rp_rec_id)r);
    rp_labels_compact_end();
    sets_after_compaction = rp_labels_set_count();
}

/* GVL held, as a recording without parts ends (rperf ctl stop, the end of
 * rperf attach, Rperf.stop): the same compaction once the store has grown
 * by a few thousand sets since the last, so that recording after recording
 * of a program that labels each request does not fill it. */
#define SETS_GROWTH_TO_COMPACT 4096

void rp_compact_labels_if_grown(void)
{
    if (rp_labels_set_count() < sets_after_compaction + SETS_GROWTH_TO_COMPACT)
        return;
    rp_aggregator_hold();
    rp_compact_labels();
    rp_aggregator_release();
}

