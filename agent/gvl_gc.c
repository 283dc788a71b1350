/*
 * agent/gvl_gc.c — GVL and GC time tracking. See gvl_gc.h.
 *
 * Contexts:
 * - SUSPENDED (wall mode only) runs on the releasing thread, documented as
 *   without the GVL: it stores a timestamp in the thread's existing record.
 * - READY (wall mode only) runs WITHOUT the GVL, possibly on another native
 *   thread: it stores a timestamp in the thread's existing record.
 * - RESUMED runs with the GVL on the resumed thread: it may capture the
 *   stack and append to the sample buffer.
 * - GC events run inside GC with the GVL (all Ractors stopped): vDSO clock
 *   reads, and now and then one stack capture; no Ruby allocation.
 * Threads of other Ractors run with their own GVL; they are ignored by
 * comparing the current Ractor's main thread with ours.
 */
#include "gvl_gc.h"

#include <time.h>

#include "gvl_holder.h"
#include "ruby_api.h"
#include "sample_buf.h"
#include "sampler.h"
#include "threads.h"

typedef enum gc_phase { GC_IDLE, GC_MARKING, GC_SWEEPING } gc_phase;

static rb_internal_thread_event_hook_t *gvl_hook;
static bool gc_hooked;
static rp_mode tracking_mode;
static VALUE main_thread = Qnil;

/* One GC at a time (GVL held): the part of the span not yet counted. */
static struct {
    gc_phase phase;
    bool in_gc;            /* between GC_ENTER and GC_EXIT */
    int64_t segment_start; /* CLOCK_MONOTONIC */
} gc;

static bool in_main_ractor(void)
{
    return rb_thread_main() == main_thread;
}

/* --- GVL ------------------------------------------------------------------ */

static void on_suspended(VALUE thread)
{
    rp_thread *t = rp_threads_find(thread);
    if (t) {
        t->suspended_ns = rp_monotonic_ns();
        t->ready_ns = 0;
    }
}

static void on_ready(VALUE thread)
{
    rp_thread *t = rp_threads_find(thread);
    if (t && t->suspended_ns)
        t->ready_ns = rp_monotonic_ns();
}

/* Wall mode: suspended → ready is blocked, ready → now is wait. */
static void resumed_wall(rp_thread *t, int64_t now)
{
    if (!t->suspended_ns)
        return; /* first sight of the thread: its clock starts now */
    int64_t ready = t->ready_ns && t->ready_ns >= t->suspended_ns ? t->ready_ns : now;
    t->pending_blocked_ns += ready - t->suspended_ns;
    t->pending_wait_ns += now - ready;
    if (t->pending_blocked_ns + t->pending_wait_ns >= rp_sampler_min_charge_ns()) {
        rp_charge charges[3] = {
            {RP_VM_RUNNING, t->suspended_ns - t->prev_ns},
            {RP_VM_GVL_BLOCKED, t->pending_blocked_ns},
            {RP_VM_GVL_WAIT, t->pending_wait_ns},
        };
        rp_sampler_record(t, charges, 3);
        t->prev_ns = now;
        t->pending_blocked_ns = t->pending_wait_ns = 0;
    } else {
        /* the next sample weighs only the running time */
        t->prev_ns += now - t->suspended_ns;
    }
    t->suspended_ns = t->ready_ns = 0;
}

/* cpu mode: the CPU used before the release and off the GVL (C code that
 * released it) belongs to this stack. The thread's CPU clock is a system
 * call; when less wall time than the threshold has passed since the last
 * charge, less CPU time has too, and the clock need not be read. */
static void resumed_cpu(rp_thread *t)
{
    int64_t min = rp_sampler_min_charge_ns();
    int64_t wall_now = rp_monotonic_ns();
    if (wall_now - t->prev_wall_ns < min)
        return;
    int64_t now = rp_sampler_clock_ns();
    if (now - t->prev_ns >= min)
        rp_sampler_charge(t, now, wall_now);
}

static void on_resumed(void)
{
    rp_thread *t = rp_sampler_current_thread();
    if (!t)
        return;
    if (tracking_mode == RP_MODE_WALL)
        resumed_wall(t, rp_monotonic_ns());
    else
        resumed_cpu(t);
}

/* Thread event hook — see the contexts at the top of this file. */
static void on_thread_event(rb_event_flag_t event, const rb_internal_thread_event_data_t *data,
                            void *unused)
{
    (void)unused;
    if (!rp_sampler_is_accepting())
        return;
    if (event & RUBY_INTERNAL_THREAD_EVENT_READY) {
        on_ready(data->thread);
    } else if (event & RUBY_INTERNAL_THREAD_EVENT_SUSPENDED) {
        on_suspended(data->thread);
    } else if ((event & RUBY_INTERNAL_THREAD_EVENT_RESUMED) && in_main_ractor()) {
        rp_gvl_holder_resumed(data->thread);
        on_resumed();
    }
}

/* --- GC ------------------------------------------------------------------ */

/* Adds the GC time since the segment started to the thread's pending GC
 * time, and keeps its next regular sample from counting it again (GC runs
 * on the thread, so its wall time stands for its CPU time too). */
static void close_gc_segment(rp_vm_state state)
{
    int64_t now = rp_monotonic_ns();
    int64_t span = now - gc.segment_start;
    gc.segment_start = now;
    rp_thread *t = rp_sampler_current_thread();
    if (!t || span <= 0)
        return;
    if (state == RP_VM_GC_MARK)
        t->pending_gc_mark_ns += span;
    else
        t->pending_gc_sweep_ns += span;
    t->prev_ns += span;
}

/* At the end of a GC step: one capture for enough pending GC time. */
static void record_pending_gc(void)
{
    rp_thread *t = rp_sampler_current_thread();
    if (!t || t->pending_gc_mark_ns + t->pending_gc_sweep_ns < rp_sampler_min_charge_ns())
        return;
    rp_charge charges[2] = {
        {RP_VM_GC_MARK, t->pending_gc_mark_ns},
        {RP_VM_GC_SWEEP, t->pending_gc_sweep_ns},
    };
    rp_sampler_record(t, charges, 2);
    t->pending_gc_mark_ns = t->pending_gc_sweep_ns = 0;
}

/* GC internal event hook — inside GC, GVL held. */
static void on_gc_event(rb_event_flag_t event, VALUE data, VALUE self, ID mid, VALUE klass)
{
    (void)data;
    (void)self;
    (void)mid;
    (void)klass;
    if (event == RUBY_INTERNAL_EVENT_GC_ENTER)
        rp_gvl_holder_gc_barrier();
    if (!rp_sampler_is_accepting())
        return;
    switch (event) {
    case RUBY_INTERNAL_EVENT_GC_ENTER:
        gc.in_gc = true;
        gc.segment_start = rp_monotonic_ns();
        break;
    case RUBY_INTERNAL_EVENT_GC_START:
        gc.phase = GC_MARKING;
        break;
    case RUBY_INTERNAL_EVENT_GC_END_MARK:
        if (gc.in_gc)
            close_gc_segment(RP_VM_GC_MARK);
        gc.phase = GC_SWEEPING;
        break;
    case RUBY_INTERNAL_EVENT_GC_END_SWEEP:
        if (gc.in_gc)
            close_gc_segment(RP_VM_GC_SWEEP);
        gc.phase = GC_IDLE;
        break;
    case RUBY_INTERNAL_EVENT_GC_EXIT:
        /* Work after the last phase change (finishing a sweep, running
         * the end of a GC) is counted as sweeping. */
        if (gc.in_gc) {
            close_gc_segment(gc.phase == GC_MARKING ? RP_VM_GC_MARK : RP_VM_GC_SWEEP);
            record_pending_gc();
        }
        gc.in_gc = false;
        break;
    default:
        break;
    }
}

/* --- lifecycle ----------------------------------------------------------- */

void rp_gvl_gc_start(rp_mode mode)
{
    tracking_mode = mode;
    main_thread = rb_thread_main();
    rp_gvl_holder_start();
    gc.phase = GC_IDLE;
    gc.in_gc = false;
    /* cpu mode only needs RESUMED: nothing is measured while off the GVL */
    rb_event_flag_t events = mode == RP_MODE_WALL
                                 ? RUBY_INTERNAL_THREAD_EVENT_SUSPENDED |
                                       RUBY_INTERNAL_THREAD_EVENT_READY |
                                       RUBY_INTERNAL_THREAD_EVENT_RESUMED
                                 : RUBY_INTERNAL_THREAD_EVENT_RESUMED;
    if (!gvl_hook)
        gvl_hook = rb_internal_thread_add_event_hook(on_thread_event, events, NULL);
    if (!gc_hooked) {
        rb_add_event_hook(on_gc_event,
                          RUBY_INTERNAL_EVENT_GC_START | RUBY_INTERNAL_EVENT_GC_END_MARK |
                              RUBY_INTERNAL_EVENT_GC_END_SWEEP | RUBY_INTERNAL_EVENT_GC_ENTER |
                              RUBY_INTERNAL_EVENT_GC_EXIT,
                          Qnil);
        gc_hooked = true;
    }
}

void rp_gvl_gc_stop(void)
{
    rp_gvl_holder_stop();
    if (gvl_hook) {
        rb_internal_thread_remove_event_hook(gvl_hook);
        gvl_hook = NULL;
    }
    if (gc_hooked) {
        rb_remove_event_hook(on_gc_event);
        gc_hooked = false;
    }
}
