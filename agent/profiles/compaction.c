/*
 * agent/profiles/compaction.c — the agent's stores kept to what is in use.
 * See compaction.h.
 */
#include "compaction.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../allocations/allocations.h"
#include "../base/recording.h"
#include "../requests/spans.h"
#include "../sampling/aggregator.h"
#include "../sampling/frame_capture.h"
#include "../sampling/frame_names.h"
#include "../sampling/labels.h"
#include "../sampling/sampler.h"
#include "../vm/threads.h"

/* --- labels ------------------------------------------------------------- */

static void carry_thread_labels(rp_thread *t, void *unused)
{
    (void)unused;
    t->label_set = rp_labels_carry(t->label_set);
}

/* Labels are compacted at every part (they are cheap to carry), and as a
 * recording without parts ends once the store has grown by a few
 * thousand sets since the last compaction, so that recording after
 * recording of a program that labels each request does not fill it. */
#define SETS_GROWTH_TO_COMPACT 4096
static uint32_t sets_after_compaction; /* the store's sets after the last one */

static void compact_labels(void)
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

static bool labels_grown(void)
{
    return rp_labels_set_count() >= sets_after_compaction + SETS_GROWTH_TO_COMPACT;
}

/* --- frame names ---------------------------------------------------------- */

/* Every holder of frame name ids (frame_names.h's `holders`). */
static void frame_name_holders(rp_frame_name_fn *fn)
{
    rp_aggregator_renumber_frame_names(fn);
    rp_sampler_renumber_frame_names(fn);
    rp_spans_renumber_frame_names(fn);
    rp_frame_capture_renumber(fn);
}

/* Names are compacted once they have grown by a quarter since the last
 * compaction, and by 4,096 names or 4 MB at least: a program that runs
 * the same code part after part rebuilds nothing, one that evals or
 * loads code without end lets it go long before the bound (1 M names,
 * 32 MB). */
#define NAMES_GROWTH_TO_COMPACT 4096
#define NAME_BYTES_GROWTH_TO_COMPACT ((size_t)4 << 20)
static size_t names_after_compaction, name_bytes_after_compaction;

static bool names_grown(void)
{
    size_t count, bytes;
    rp_frame_names_footprint(&count, &bytes);
    return count >= names_after_compaction + names_after_compaction / 4 + NAMES_GROWTH_TO_COMPACT ||
           bytes >= name_bytes_after_compaction + name_bytes_after_compaction / 4 + NAME_BYTES_GROWTH_TO_COMPACT;
}

static void compact_frame_names(void)
{
    rp_allocs_let_go_of_stacks();
    rp_frame_names_compact(frame_name_holders); /* out of memory: kept as they are */
    rp_frame_names_footprint(&names_after_compaction, &name_bytes_after_compaction);
}

/* --- when ------------------------------------------------------------------ */

void rp_compact_stores(void)
{
    compact_labels();
    if (names_grown())
        compact_frame_names();
}

void rp_compact_stores_if_grown(void)
{
    bool labels = labels_grown(), names = names_grown();
    if (!labels && !names)
        return;
    rp_aggregator_hold();
    if (labels)
        compact_labels();
    if (names)
        compact_frame_names();
    rp_aggregator_release();
}
