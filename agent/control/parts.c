/*
 * agent/control/parts.c — the whole profile in parts (RPERF_INTERVAL).
 * See parts.h.
 */
#include "parts.h"

#include <inttypes.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../../common/clock.h"
#include "../allocations/allocations.h"
#include "../base/fd_reserve.h"
#include "../base/log.h"
#include "../base/ruby_api.h"
#include "../requests/spans.h"
#include "../sampling/aggregator.h"
#include "../profiles/compaction.h"
#include "../sampling/sampler.h"
#include "../sampling/worker.h"
#include "../vm/gvl_holder.h"
#include "../vm/threads.h"
#include "agent.h"
#include "whole.h"

static rb_postponed_job_handle_t rotate_job = POSTPONED_JOB_HANDLE_INVALID;
static void write_part(void *unused);

/* Why the next part is asked for: RP_PART_END_* bits (any thread). */
static atomic_int asked;
#define ASKED(why) (1 << (why))

/* Worker thread, or a Ruby thread folding: async-signal-safe. */
static void ask(rp_part_end why)
{
    atomic_fetch_or(&asked, ASKED(why));
    rb_postponed_job_trigger(rotate_job);
    rp_gvl_holder_interrupt();
}

/* The thread folding, the aggregator's lock held (aggregator.h): a
 * recording's stack table is nearly full. The whole profile writes a
 * part; the Rperf API's session hands one to the extension (agent.h). */
static bool stacks_filled(rp_rec_id id)
{
    if (id == RP_REC_SESSION)
        return rp_agent_session_filled();
    ask(RP_PART_END_FULL_STACKS);
    return true;
}

void rp_parts_init(void)
{
    rotate_job = rb_postponed_job_preregister(0, write_part, NULL);
    rp_aggregator_set_on_filled(stacks_filled);
}

/* A part built on a Ruby thread, written by the worker. */
typedef struct part {
    rp_window window; /* the part's own times (no weights) */
    rp_write_request req;
    rp_profile profile;
    bool built;
} part;

/* Worker thread (or the Ruby thread when the worker is busy): writes the
 * part and frees it. No Ruby call. */
static void save_part(void *arg)
{
    part *pt = arg;
    char path[RP_PATH_MAX + 64];
    char why[RP_PATH_MAX + 256];
    if (pt->built) {
        rp_fd_reserve_give_back(); /* a program out of descriptors */
        bool saved = rp_writer_save(&pt->req, &pt->profile, path, sizeof(path), why, sizeof(why)) == 0;
        rp_fd_reserve_take(agent.session.dir);
        rp_whole_report_part(saved, why);
    }
    rp_profile_free(&pt->profile);
    free(pt);
    /* The part's tables and profile, freed by now, were in two threads'
     * malloc arenas, which keep freed pages resident: without handing
     * them back, each part would add to the process's memory what the
     * next one does not reuse (65 MB against 55 MB at a 40 s, 10 kHz
     * run with four parts). */
    malloc_trim(0);
}

/* The worker thread, as a posted job: it folds between the file's chunks,
 * so that sampling at 10 kHz never finds both buffers full meanwhile. */
static void save_part_on_worker(void *arg)
{
    part *pt = arg;
    pt->req.between_chunks = rp_worker_fold_now;
    save_part(pt);
}

static VALUE build_part(VALUE arg)
{
    part *pt = (part *)arg;
    pt->built = rp_writer_build(&pt->req, &pt->profile) == 0;
    return Qnil;
}

/* Postponed job — whichever Ruby thread holds the GVL, at the first
 * safepoint after an interval ended. Builds the part (resolving frames
 * needs the GVL), empties the tables — frames of the part are no longer
 * pinned, so memory stops growing — and leaves the writing to the worker.
 * The pause a Ruby thread sees is the build; it is measured. */
static void write_part(void *unused)
{
    (void)unused;
    int why = atomic_exchange(&asked, 0);
    if (!why || atomic_load(&agent.state) != AGENT_ACTIVE || getpid() != agent.owner_pid)
        return;
    int64_t started = rp_monotonic_ns(), started_cpu = rp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    part *pt = calloc(1, sizeof(*pt));
    if (!pt)
        return; /* the interval goes on into the next part */
    pt->window = agent.whole;
    pt->req = rp_whole_write_request(&pt->window);
    pt->req.part_end = why & ASKED(RP_PART_END_FULL_STACKS) ? RP_PART_END_FULL_STACKS : RP_PART_END_INTERVAL;
    pt->req.part = rp_whole_next_part(pt->req.part_end);
    pt->req.take_requests = true; /* the next part has its own */
    int raised = 0;
    rp_spans_spill_open();
    rp_aggregator_hold();
    rb_protect(build_part, (VALUE)pt, &raised);
    rp_aggregator_empty(RP_REC_WHOLE);
    rp_allocs_restart_count(RP_REC_WHOLE);
    rp_compact_stores();
    rp_window_begin_part(&agent.whole);
    agent.whole.profile = ++agent.profile_serial; /* windows of the Rperf API restart here too */
    rp_aggregator_release();
    rp_whole_part_paused(rp_monotonic_ns() - started, rp_clock_ns(CLOCK_THREAD_CPUTIME_ID) - started_cpu);
    if (!rp_worker_post(save_part_on_worker, pt))
        save_part(pt);
    if (raised)
        rb_jump_tag(raised);
}

void rp_parts_ask(void)
{
    ask(RP_PART_END_INTERVAL);
}



