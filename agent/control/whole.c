/*
 * agent/control/whole.c — the whole-process profile. See whole.h.
 */
#include "whole.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../profile/encode/verbose.h"
#include "../allocations/allocations.h"
#include "../base/fd_reserve.h"
#include "../base/log.h"
#include "../base/ruby_api.h"
#include "../profiles/compaction.h"
#include "../requests/spans.h"
#include "../sampling/aggregator.h"
#include "../sampling/defer.h"
#include "../sampling/frame_capture.h"
#include "../sampling/frame_names.h"
#include "../sampling/gvl_gc.h"
#include "../sampling/sample_buf.h"
#include "../sampling/sampler.h"
#include "../sampling/worker.h"
#include "../vm/gc_watch.h"
#include "../vm/ractors.h"
#include "../vm/threads.h"

struct agent_life agent = {.state = AGENT_OFF};

/* --- parts' bookkeeping (RPERF_INTERVAL; parts.c writes them) ------------- */

static int64_t parts_written; /* parts of this process taken */
static int64_t parts_at_full_stacks; /* of which ended as the stack table filled */
/* The pauses parts cost a Ruby thread (RPERF_VERBOSE), in wall time and
 * in the thread's CPU time: on a busy machine the wall time also holds
 * the stretches the kernel ran other processes. */
static int64_t longest_rotation_ns, total_rotation_ns, total_rotation_cpu_ns, rotations;
static atomic_long parts_failing; /* parts lost since the last one written */

static void parts_begin(void)
{
    parts_written = parts_at_full_stacks = 0;
    longest_rotation_ns = total_rotation_ns = total_rotation_cpu_ns = rotations = 0;
    atomic_store(&parts_failing, 0);
}

static int64_t last_part_number(void)
{
    return agent.cfg.interval || parts_written ? ++parts_written : 0;
}

/* Worker thread or a Ruby thread, possibly both at once: says how writing
 * a part went. A server whose session directory went away (or whose disk
 * is full) would otherwise print the same line every interval: the first
 * failure is printed, the parts lost after it only counted, and the first
 * part written again says how many were lost. */
void rp_whole_report_part(bool saved, const char *why)
{
    if (!saved) {
        if (atomic_fetch_add(&parts_failing, 1) == 0)
            rp_log("%s (parts of process %ld that cannot be written are counted, not reported)",
                   why, (long)getpid());
        return;
    }
    long lost = atomic_exchange(&parts_failing, 0);
    if (lost)
        rp_log("profile parts of process %ld written again; %ld parts lost", (long)getpid(), lost);
}

static double mean_ms(int64_t total_ns, int64_t count)
{
    return count ? (double)total_ns / (double)count / 1e6 : 0.0;
}

static void say_pauses(void)
{
    int64_t at_interval = parts_written - 1 - parts_at_full_stacks;
    rp_log("%" PRId64 " parts written: %" PRId64 " as RPERF_INTERVAL=%ld ended, %" PRId64
           " as the stack table filled (RPERF_MAX_STACKS=%ld), the last at the end; the pause a part cost a "
           "Ruby thread: mean %.2f ms (%.2f ms of its CPU time), longest %.2f ms",
           parts_written, at_interval, agent.cfg.interval, parts_at_full_stacks, agent.cfg.max_stacks,
           mean_ms(total_rotation_ns, rotations), mean_ms(total_rotation_cpu_ns, rotations),
           (double)longest_rotation_ns / 1e6);
}

/* GVL held, at exit: writes the profile (or the last part). Unlike a
 * part's, its failure is always printed: it is the last word. */
static bool save_last(const rp_write_request *req, const rp_profile *p, char *path, size_t size)
{
    char why[RP_PATH_MAX + 256];
    bool saved = rp_writer_save(req, p, path, size, why, sizeof(why)) == 0;
    long lost = atomic_load(&parts_failing);
    if (saved)
        rp_whole_report_part(true, NULL);
    else if (lost)
        rp_log("%s; %ld earlier parts were lost too", why, lost);
    else
        rp_log("%s", why);
    return saved;
}

int64_t rp_whole_next_part(rp_part_end why)
{
    if (why == RP_PART_END_FULL_STACKS)
        parts_at_full_stacks++;
    return ++parts_written;
}

void rp_whole_part_paused(int64_t pause_ns, int64_t cpu_ns)
{
    if (pause_ns > longest_rotation_ns)
        longest_rotation_ns = pause_ns;
    total_rotation_ns += pause_ns;
    total_rotation_cpu_ns += cpu_ns;
    rotations++;
}

/* --- the machinery and the whole profile ------------------------------------ */

/* GVL held: the worker and the hooks that the open recordings need,
 * started when none runs yet (the first recording, a dormant process's
 * first session), ticking at their rate. */
int rp_whole_start_machinery(void)
{
    rp_allocs_update();
    if (rp_worker_running()) {
        rp_gvl_gc_update();
        rp_worker_update_ticks();
        return 0;
    }
    rp_gvl_gc_restart(); /* hooks a fork child has from its parent, afresh */
    return rp_worker_start();
}

/* GVL held: when no recording is open any more, no tick, no hook and no
 * worker thread (a dormant process after its session). Returns false
 * when the worker did not stop: its tables must not be touched then. */
bool rp_whole_stop_machinery_if_idle(void)
{
    rp_worker_update_ticks();
    rp_allocs_update();
    if (rp_recordings_any_open())
        return true;
    rp_gvl_gc_stop();
    return rp_worker_stop();
}

/* The whole process's recording, as RPERF_* configure it. */
static rp_rec_config whole_config(void)
{
    return (rp_rec_config){.mode = agent.cfg.mode, .frequency = agent.cfg.frequency,
                           .aggregate = agent.cfg.aggregate, .deferred = agent.cfg.defer,
                           .alloc_rate = agent.cfg.alloc_rate};
}

/* GVL held: opens a new profile of the whole process (at boot, or in a
 * fork child). A deferred process (RPERF_DEFER) begins paused. */
void rp_whole_begin_profile(void)
{
    parts_begin();
    agent.owner_pid = getpid();
    rp_fd_reserve_take(agent.session.dir);
    rp_rec_config rec = whole_config();
    rp_aggregator_begin(RP_REC_WHOLE, rec.aggregate, (size_t)agent.cfg.max_stacks);
    rp_recording_open(RP_REC_WHOLE, &rec, rec.deferred && rp_defer_pauses());
    rp_allocs_begin(RP_REC_WHOLE);
    rp_spans_begin_recording(RP_REC_WHOLE);
    /* stamped once its counters are zero */
    rp_window_begin_empty(&agent.whole, RP_REC_WHOLE);
    if (agent.remote_profile)
        rp_window_begin_part(&agent.whole); /* the process's CPU time counts from now */
    agent.whole.profile = ++agent.profile_serial;
    rp_sampler_start_clock(RP_REC_WHOLE);
    if (rp_whole_start_machinery() != 0) {
        rp_recording_close(RP_REC_WHOLE);
        rp_whole_stop_machinery_if_idle();
        atomic_store(&agent.state, AGENT_OFF);
        return;
    }
    atomic_store(&agent.state, AGENT_ACTIVE);
}

/* GVL held: a fresh profile for this process after the previous one was
 * dropped (fork child) or written (failed exec): empty tables, counters
 * from zero, threads numbered from 1 again. */
void rp_whole_begin_fresh_profile(void)
{
    rp_sample_buf_reset();
    rp_threads_new_generation();
    rp_whole_begin_profile();
}

/* --- finishing ----------------------------------------------------------- */

static void announce_session(bool wrote)
{
    if (!agent.session.is_root || agent.cfg.quiet)
        return;
    int count = rp_session_count_profiles(&agent.session);
    if (!wrote && count == 0)
        return;
    rp_log("%d profile%s in %s — analyze with: rperf-analyze stat %s", count,
           count == 1 ? "" : "s", agent.session.display, agent.session.display);
}

/* What the writer needs to write `window` of the recording it is of. */
rp_write_request rp_whole_write_request(const rp_window *window)
{
    return (rp_write_request){
        .recording = window->recording,
        .rec = rp_recording_get(window->recording)->cfg,
        .session = &agent.session,
        .window = window,
        .stats = rp_recording_stats(window->recording),
        .detected_threads = rp_threads_detected(),
        /* Every process of the whole-process session but its root carries
         * %pid; the Rperf API labels its own sessions' children. */
        .label_pid = window->recording == RP_REC_WHOLE && !agent.session.is_root,
    };
}

/* RPERF_VERBOSE: how much time the stack cap sent to the capped stack. */
static void say_capped(const rp_aggregate *agg)
{
    if (agg->capped)
        rp_log("%zu samples (%.1f ms) went to " RP_CAPPED_FRAME_NAME ": the profile reached "
               "RPERF_MAX_STACKS=%ld distinct stacks",
               agg->capped, (double)agg->capped_weight / 1e6, agent.cfg.max_stacks);
}

/* RPERF_VERBOSE: how often a captured frame had to be named anew, and
 * the names held now. */
static void say_frame_names(void)
{
    uint64_t captured, named;
    size_t held, bytes;
    rp_frame_capture_counts(&captured, &named);
    rp_frame_names_footprint(&held, &bytes);
    rp_log("frame names: %" PRIu64 " frames captured, %" PRIu64 " named anew (%.1f%%); %zu names held, in %.1f MB",
           captured, named, captured ? 100.0 * (double)named / (double)captured : 0.0, held,
           (double)bytes / (1 << 20));
}

/* RPERF_VERBOSE: how often the worker stopped its ticks while no thread
 * held the GVL (worker.c, idleness). */
static void say_idle_pauses(void)
{
    uint64_t pauses;
    int64_t ns;
    rp_worker_idle_totals(&pauses, &ns);
    rp_log("ticks paused while no thread held the GVL: %" PRIu64 " time%s, %.1f ms in all", pauses,
           pauses == 1 ? "" : "s", (double)ns / 1e6);
}

/* RPERF_VERBOSE with RPERF_ALLOC: the objects followed at the end and
 * what following them costs in memory. */
static void say_followed(void)
{
    size_t followed, peak, bytes;
    rp_allocs_footprint(&followed, &peak, &bytes);
    if (!rp_gc_watch_marks_known())
        rp_log("allocation sampling: no object followed: this Ruby's GC keeps its mark bits elsewhere "
               "than the default GC of Ruby 3.4 and 4.0 (retained objects are not measured)");
    rp_log("allocation sampling: %zu objects followed at the end, %zu at most, in %zu KB (%.0f bytes "
           "per object at the most); %" PRId64 " sampled objects not followed (RPERF_ALLOC_FOLLOW=%ld)",
           followed, peak, bytes / 1024, peak ? (double)bytes / (double)peak : 0.0,
           rp_allocs_unfollowed(RP_REC_WHOLE), agent.cfg.alloc_follow);
    double scale = rp_allocs_scale(RP_REC_WHOLE);
    if (scale > 1.0)
        rp_log("allocation sampling: the windows saw %.2f%% of the allocations (the hook's cost is paid on "
               "those only)", 100.0 / scale);
}

/* RPERF_VERBOSE=1: the summary on stderr. */
static void print_verbose(const rp_profile *p)
{
    rp_out *out = rp_out_stream(stderr, false);
    if (!out)
        return;
    rp_verbose_write(p, out, rp_threads_allocated());
    rp_out_close(out);
}

/* GVL held, at the end of the process (or of its image, at exec): a
 * session the program did not stop ends unwritten, as the gem's does. */
static void close_session_at_end(void)
{
    if (!rp_recording_get(RP_REC_SESSION)->open)
        return;
    rp_ractors_settle();
    rp_recording_close(RP_REC_SESSION);
    rp_aggregator_clear(RP_REC_SESSION);
    rp_allocs_forget(RP_REC_SESSION);
}

/* GVL held, on the thread that ends the process: stops sampling and writes
 * this process's profile, once. */
void rp_whole_end_profile(void)
{
    rp_whole_end_whole_profile(true);
}

/* GVL held: stops sampling and writes the whole-process profile. At the
 * end of the process (or of its image), a session the program did not
 * stop ends too; otherwise (rperf ctl stop) it goes on. */
void rp_whole_end_whole_profile(bool at_end)
{
    if (getpid() != agent.owner_pid && atomic_load(&agent.state) != AGENT_DORMANT)
        return;
    int expected = AGENT_ACTIVE;
    bool profiled = atomic_compare_exchange_strong(&agent.state, &expected, AGENT_OFF);
    if (at_end)
        close_session_at_end();
    if (!profiled) {
        /* dormant: only a session's machinery to stop */
        rp_whole_stop_machinery_if_idle();
        return;
    }
    rp_ractors_settle(); /* the Ractors still running count up to here */
    if (at_end)
        rp_sampler_charge_tail(); /* the ending thread's last stretch */
    rp_spans_close_open();
    rp_spans_spill_open();
    rp_recording_close(RP_REC_WHOLE);
    if (!rp_whole_stop_machinery_if_idle()) {
        rp_log("the sampling thread did not stop; no profile written for process %ld",
               (long)getpid());
        return;
    }
    rp_aggregator_fold(rp_sample_buf_active());

    rp_fd_reserve_give_back(); /* for a program out of descriptors */
    rp_write_request req = rp_whole_write_request(&agent.whole);
    req.part = last_part_number();
    char path[RP_PATH_MAX + 64];
    rp_profile profile;
    bool wrote = rp_writer_build(&req, &profile) == 0;
    if (agent.cfg.verbose) {
        say_capped(rp_aggregator_tables(RP_REC_WHOLE));
        say_frame_names();
        say_idle_pauses();
        if (parts_written)
            say_pauses();
    }
    if (agent.cfg.verbose && agent.cfg.alloc_rate)
        say_followed();
    rp_aggregator_clear(RP_REC_WHOLE);
    rp_allocs_forget(RP_REC_WHOLE);
    if (!at_end)
        rp_compact_stores_if_grown();
    wrote = wrote && save_last(&req, &profile, path, sizeof(path));
    snprintf(agent.last_written, sizeof(agent.last_written), "%s", wrote ? path : "");
    if (agent.cfg.verbose)
        print_verbose(&profile);
    rp_profile_free(&profile);
    announce_session(wrote);
}

/* True when the calling thread is this process's profiled Ruby thread
 * holding the GVL: the only place where the profile may be written from
 * an interposed libc call. Cheap and safe in any process and context. */
bool rp_whole_on_profiled_ruby_thread(void)
{
    return atomic_load(&agent.state) == AGENT_ACTIVE && getpid() == agent.owner_pid && ruby_native_thread_p &&
           ruby_thread_has_gvl_p && ruby_native_thread_p() && ruby_thread_has_gvl_p();
}

/* Postponed job — the fork child's main thread, GVL held. The thread that
 * forked is the only one here; its record, still of the parent's
 * generation, says which profile blocks are open. */
void rp_whole_restart_in_fork_child(void *unused)
{
    (void)unused;
    if (atomic_load(&agent.state) != AGENT_RESTART_PENDING)
        return;
    agent.session.is_root = false;
    rp_defer_after_fork(rp_threads_find(rb_thread_current()));
    rp_whole_begin_fresh_profile();
}

