/*
 * agent/gvl_gc.c — GVL and GC time tracking. See gvl_gc.h.
 *
 * Contexts:
 * - SUSPENDED runs on the releasing thread just before another thread is
 *   woken (thread_sched_to_waiting_common0 and friends in Ruby 3.4): no
 *   other Ruby thread runs yet, so it may read its own stack and append to
 *   the sample buffer like the GVL holder; it takes no lock and never
 *   allocates (Ruby documents it as running without the GVL).
 * - READY runs WITHOUT the GVL, possibly on another native thread: it only
 *   stores a timestamp in the thread's existing record.
 * - RESUMED runs with the GVL on the resumed thread.
 * - GC events run inside GC with the GVL (all Ractors stopped): no Ruby
 *   allocation, only clock reads, rb_profile_frames and the buffer.
 * Threads of other Ractors run with their own GVL; they are ignored by
 * comparing the current Ractor's main thread with ours.
 */
#include "gvl_gc.h"

#include <time.h>

#include "ruby_api.h"
#include "sample_buf.h"
#include "sampler.h"
#include "threads.h"

typedef enum gc_phase { GC_IDLE, GC_MARKING, GC_SWEEPING } gc_phase;

static rb_internal_thread_event_hook_t *gvl_hook;
static bool gc_hooked;
static rp_mode tracking_mode;
static VALUE main_thread = Qnil;

/* One GC at a time (GVL held): the span being measured. */
static struct {
    gc_phase phase;
    bool in_gc;           /* between GC_ENTER and GC_EXIT */
    int64_t segment_start; /* mode's clock at the start of the unrecorded part */
} gc;

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static bool in_main_ractor(void)
{
    return rb_thread_main() == main_thread;
}

/* --- GVL ------------------------------------------------------------------ */

/* Officially without the GVL: uses only an existing record (a thread gets
 * one at its first RESUMED or sample) and never allocates. */
static void on_suspended(VALUE thread)
{
    rp_thread *t = rp_threads_find(thread);
    if (!t)
        return;
    int64_t now = rp_sampler_clock_ns();
    rp_sampler_charge(t, now);
    if (tracking_mode == RP_MODE_WALL) {
        t->suspended_ns = now;
        t->ready_ns = 0;
    }
}

static void on_ready(VALUE thread)
{
    rp_thread *t = rp_threads_find(thread);
    if (t && t->suspended_ns)
        t->ready_ns = monotonic_ns();
}

/* Wall mode: blocked = suspended → ready, wait = ready → resumed. */
static void charge_gvl_wall(rp_thread *t, int64_t now)
{
    if (!t->suspended_ns)
        return;
    int64_t ready = t->ready_ns ? t->ready_ns : now;
    if (ready > t->suspended_ns)
        rp_sampler_record(t->thread_seq, RP_VM_GVL_BLOCKED, ready - t->suspended_ns);
    if (now > ready)
        rp_sampler_record(t->thread_seq, RP_VM_GVL_WAIT, now - ready);
    t->suspended_ns = 0;
    t->ready_ns = 0;
}

static void on_resumed(void)
{
    int64_t now = rp_sampler_clock_ns();
    rp_thread *t = rp_sampler_current_thread(now);
    if (!t)
        return;
    if (tracking_mode == RP_MODE_WALL) {
        charge_gvl_wall(t, now);
        t->prev_ns = now;
    } else {
        /* CPU used while off the GVL (a C extension working without it)
         * belongs to the call that released it: the current stack. */
        rp_sampler_charge(t, now);
    }
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
        return;
    }
    if (!in_main_ractor())
        return;
    if (event & RUBY_INTERNAL_THREAD_EVENT_SUSPENDED)
        on_suspended(data->thread);
    else if (event & RUBY_INTERNAL_THREAD_EVENT_RESUMED)
        on_resumed();
}

/* --- GC ------------------------------------------------------------------ */

/* Records the GC time since the segment started as `state`, and keeps the
 * thread's next regular sample from counting it again. */
static void close_gc_segment(rp_vm_state state)
{
    int64_t now = rp_sampler_clock_ns();
    int64_t span = now - gc.segment_start;
    gc.segment_start = now;
    rp_thread *t = rp_sampler_current_thread(now);
    if (!t || span <= 0)
        return;
    rp_sampler_record(t->thread_seq, state, span);
    t->prev_ns += span;
}

/* GC internal event hook — inside GC, GVL held. */
static void on_gc_event(rb_event_flag_t event, VALUE data, VALUE self, ID mid, VALUE klass)
{
    (void)data;
    (void)self;
    (void)mid;
    (void)klass;
    if (!rp_sampler_is_accepting())
        return;
    switch (event) {
    case RUBY_INTERNAL_EVENT_GC_ENTER:
        gc.in_gc = true;
        gc.segment_start = rp_sampler_clock_ns();
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
        if (gc.in_gc)
            close_gc_segment(gc.phase == GC_MARKING ? RP_VM_GC_MARK : RP_VM_GC_SWEEP);
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
    gc.phase = GC_IDLE;
    gc.in_gc = false;
    if (!gvl_hook)
        gvl_hook = rb_internal_thread_add_event_hook(on_thread_event,
                                                     RUBY_INTERNAL_THREAD_EVENT_SUSPENDED |
                                                         RUBY_INTERNAL_THREAD_EVENT_READY |
                                                         RUBY_INTERNAL_THREAD_EVENT_RESUMED,
                                                     NULL);
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
    if (gvl_hook) {
        rb_internal_thread_remove_event_hook(gvl_hook);
        gvl_hook = NULL;
    }
    if (gc_hooked) {
        rb_remove_event_hook(on_gc_event);
        gc_hooked = false;
    }
}
