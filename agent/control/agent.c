/*
 * agent/control/agent.c — the agent as the Rperf API sees it. See agent.h.
 *
 * Owns: the Rperf API's session (Rperf.start to Rperf.stop) as a second
 * recording beside the whole process's, the windows Rperf.snapshot reads,
 * and building a profile of either for the API.
 *
 * Context: a Ruby thread holding the GVL (the extension's methods).
 */
#include "agent.h"

#include <stdatomic.h>

#include "../allocations/allocations.h"
#include "../base/ruby_api.h"
#include "../profiles/compaction.h"
#include "../requests/spans.h"
#include "../sampling/aggregator.h"
#include "../sampling/defer.h"
#include "../sampling/sampler.h"
#include "../vm/gvl_holder.h"
#include "../vm/threads.h"
#include "whole.h"

static rp_window session_start; /* the Rperf API's session, since Rperf.start or its last part */
static uint32_t session_serial;
static int64_t session_parts; /* parts of the session taken */
static void (*session_sink)(rp_profile *part);
static rb_postponed_job_handle_t spill_job = POSTPONED_JOB_HANDLE_INVALID;

static void clear_thread_labels(rp_thread *t, void *unused)
{
    (void)unused;
    t->label_set = 0;
}

bool rp_agent_profiling(void)
{
    /* A fork child's profile begins at its first safepoint; the program
     * may call the API before that: begin it now. */
    rp_whole_restart_in_fork_child(NULL);
    /* No getpid() (a system call, about as costly as a labelled block):
     * Ruby forks through fork(), whose child handler leaves ACTIVE at
     * once, and no Ruby code runs in a vfork child. */
    return atomic_load(&agent.state) == AGENT_ACTIVE;
}

bool rp_agent_session_is_open(void)
{
    return rp_recording_get(RP_REC_SESSION)->open;
}

bool rp_agent_take_session_at_fork(void)
{
    bool was = agent.session_at_fork;
    agent.session_at_fork = false;
    return was;
}

const rp_config *rp_agent_config(void)
{
    return &agent.cfg;
}

const char *rp_agent_session_dir(void)
{
    return agent.cfg.dormant || !agent.session.dir[0] ? NULL : agent.session.dir;
}

int rp_agent_session_open(const rp_session_opts *o)
{
    rp_whole_restart_in_fork_child(NULL);
    if (atomic_load(&agent.state) == AGENT_OFF || rp_agent_session_is_open())
        return -1;
    rp_aggregator_begin(RP_REC_SESSION, o->rec.aggregate, (size_t)agent.cfg.max_stacks);
    rp_recording_open(RP_REC_SESSION, &o->rec, o->rec.deferred && rp_defer_pauses());
    rp_allocs_begin(RP_REC_SESSION);
    rp_spans_begin_recording(RP_REC_SESSION);
    /* its times and the process's CPU time from now (counters are zero) */
    session_start.recording = RP_REC_SESSION;
    rp_window_begin_part(&session_start);
    session_start.profile = ++session_serial;
    session_parts = 0;
    rp_sampler_start_clock(RP_REC_SESSION);
    if (rp_whole_start_machinery() != 0) {
        rp_agent_session_close();
        return -1;
    }
    return 0;
}

void rp_agent_session_close(void)
{
    if (!rp_agent_session_is_open())
        return;
    rp_recording_close(RP_REC_SESSION);
    rp_aggregator_clear(RP_REC_SESSION);
    rp_allocs_forget(RP_REC_SESSION);
    rp_compact_stores_if_grown();
    rp_whole_stop_machinery_if_idle();
}

/* The window a recording's profile starts at, and its current serial. */
static const rp_window *start_of(rp_rec_id id)
{
    return id == RP_REC_WHOLE ? &agent.whole : &session_start;
}

/* GVL held: the calling thread's time up to now goes into the tables
 * before a window opens or is read. Otherwise its edge would fall at the
 * thread's next tick, which on a loaded machine can come tens of ms late,
 * and that stretch would land on the wrong side of Rperf.start/stop. */
static void charge_caller(rp_rec_id id)
{
    rp_sampler_charge_current(id);
}

int rp_agent_open_window(rp_rec_id id, rp_window *w)
{
    charge_caller(id);
    rp_spans_spill_open(); /* samples buffered before the window are not of it */
    rp_aggregator_hold();
    int rc = rp_window_begin_at(w, id);
    rp_aggregator_release();
    if (rc == 0)
        w->profile = start_of(id)->profile;
    return rc;
}

struct build_args {
    rp_write_request req;
    rp_profile *profile;
    int rc;
};

static VALUE build_held(VALUE arg)
{
    struct build_args *a = (struct build_args *)arg;
    a->rc = rp_writer_build(&a->req, a->profile);
    return Qnil;
}

int rp_agent_build_window(rp_rec_id id, const rp_window *w, rp_profile *p)
{
    /* A window of an earlier profile (before a fork) means this one whole. */
    const rp_window *from = w && w->recording == id && w->profile == start_of(id)->profile ? w : start_of(id);
    struct build_args args = {.req = rp_whole_write_request(from), .profile = p, .rc = -1};
    int raised = 0;
    charge_caller(id);
    rp_spans_spill_open();
    rp_aggregator_hold();
    /* Resolving frames allocates Ruby strings; should that raise, the
     * worker must still be let go before the exception goes on. */
    rb_protect(build_held, (VALUE)&args, &raised);
    rp_aggregator_release();
    if (raised)
        rb_jump_tag(raised);
    return args.rc;
}

void rp_agent_clear_labels(void)
{
    rp_threads_each(clear_thread_labels, NULL);
}


int rp_agent_take_session_part(rp_profile *p)
{
    struct build_args args = {.req = rp_whole_write_request(&session_start), .profile = p, .rc = -1};
    args.req.part = session_parts + 1;
    args.req.part_end = RP_PART_END_FULL_STACKS;
    args.req.take_requests = true; /* the next part has its own */
    int raised = 0;
    charge_caller(RP_REC_SESSION);
    rp_spans_spill_open();
    rp_aggregator_hold();
    rb_protect(build_held, (VALUE)&args, &raised);
    if (args.rc == 0 && !raised) {
        session_parts++;
        rp_aggregator_empty(RP_REC_SESSION);
        rp_allocs_restart_count(RP_REC_SESSION);
        rp_compact_stores();
        rp_window_begin_part(&session_start);
        session_start.profile = ++session_serial; /* windows of it restart here */
    }
    rp_aggregator_release();
    if (raised)
        rb_jump_tag(raised);
    return args.rc;
}

static VALUE take_part_protected(VALUE arg)
{
    rp_profile *p = (rp_profile *)arg;
    return rp_agent_take_session_part(p) == 0 ? Qtrue : Qfalse;
}

/* Postponed job — whichever Ruby thread holds the GVL, soon after the
 * session's stack table filled: its part goes to the extension. Nothing
 * may raise out of a postponed job: a part that cannot be built is
 * left in the tables, whose bound then holds. */
static void spill_session(void *unused)
{
    (void)unused;
    if (!session_sink || !rp_agent_session_is_open())
        return;
    rp_profile part;
    int raised = 0;
    VALUE taken = rb_protect(take_part_protected, (VALUE)&part, &raised);
    if (raised) {
        rb_set_errinfo(Qnil);
        rp_profile_free(&part);
        return;
    }
    if (taken != Qtrue) {
        rp_profile_free(&part);
        return;
    }
    session_sink(&part);
}

void rp_agent_set_session_sink(void (*sink)(rp_profile *part))
{
    if (spill_job == POSTPONED_JOB_HANDLE_INVALID)
        spill_job = rb_postponed_job_preregister(0, spill_session, NULL);
    session_sink = sink;
}

bool rp_agent_session_filled(void)
{
    if (!session_sink || spill_job == POSTPONED_JOB_HANDLE_INVALID)
        return false;
    rb_postponed_job_trigger(spill_job);
    rp_gvl_holder_interrupt();
    return true;
}
