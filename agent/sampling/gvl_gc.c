/*
 * agent/sampling/gvl_gc.c — GVL and GC time tracking. See gvl_gc.h.
 *
 * Contexts:
 * - SUSPENDED runs on the releasing thread, documented as without the
 *   GVL: it stores a timestamp (and with M:N threads its CPU clock,
 *   thread_cpu.h) in the thread's existing record.
 * - READY (wall mode only) runs WITHOUT the GVL, possibly on another native
 *   thread: it stores a timestamp in the thread's existing record.
 * - RESUMED runs with the GVL on the resumed thread: it may capture the
 *   stack and append to the sample buffer.
 * - THREAD_END runs with the GVL on the ending thread, its frames gone:
 *   the sampler charges its last stretch to its last stack.
 * - GC events run inside GC with the GVL (all Ractors stopped): vDSO clock
 *   reads (and the thread's CPU clock, a system call, for cpu mode), and
 *   now and then one stack capture; no Ruby allocation.
 * Threads of other Ractors run with their own GVL: only their time is
 * kept (ractors.h), told apart by the current Ractor's main thread.
 */
#include "gvl_gc.h"

#include <stdatomic.h>
#include <time.h>

#include "../vm/gvl_holder.h"
#include "../vm/ractors.h"
#include "../base/recording.h"
#include "../base/ruby_api.h"
#include "sample_buf.h"
#include "sampler.h"
#include "worker.h"
#include "../vm/thread_cpu.h"
#include "../vm/threads.h"
#include "../vm/tick_cpu.h"

typedef enum gc_phase { GC_IDLE, GC_MARKING, GC_SWEEPING } gc_phase;

static rb_internal_thread_event_hook_t *gvl_hook;
static rb_event_flag_t gvl_events; /* what gvl_hook is installed for */
static bool gc_hooked;
static VALUE main_thread = Qnil;
static const rp_gvl_gc_requests *requests; /* once the first request began */

/* One GC at a time (GVL held): the part of the span not yet counted, on
 * the monotonic clock and — for cpu-mode recordings, whose every weight is
 * CPU time — on the GC'ing thread's CPU clock. */
static struct {
    gc_phase phase;
    bool in_gc;          /* between GC_ENTER and GC_EXIT */
    bool has_cpu;        /* segment_cpu was read (a cpu-mode recording accepts) */
    int64_t segment_start; /* CLOCK_MONOTONIC */
    int64_t segment_cpu;   /* the thread's CPU clock (thread_cpu.h) */
    rp_thread *thread;     /* the GC'ing thread's record, looked up once at GC_ENTER
                            * (a thread without one is counted as dropped once) */
} gc;

static bool in_main_ractor(void)
{
    return rb_thread_main() == main_thread;
}

static bool any_accepting(void)
{
    for (int i = 0; i < RP_RECORDINGS; i++)
        if (atomic_load_explicit(&rp_recording_get((rp_rec_id)i)->accepting, memory_order_relaxed))
            return true;
    return false;
}

/* --- GVL ------------------------------------------------------------------ */

/* The shortest stretch off the GVL whose CPU resumed_cpu splits off. */
#define OFF_GVL_SPLIT_NS 250000

/* cpu mode: the thread's CPU clock at its release of the GVL, for
 * resumed_cpu. Read only when the last reading is older than the
 * stretches resumed_cpu splits (a system call each: 1.5 us on this
 * project's virtual machines, and a server's threads release the GVL
 * thousands of times a second); else at most that reading plus the wall
 * time since, which a shorter stretch of running could not exceed. */
static void cpu_at_release(rp_thread *t, int64_t now)
{
    if (now - t->cpu_seen_at_ns >= OFF_GVL_SPLIT_NS) {
        t->suspended_cpu_ns = rp_thread_cpu_now(&t->cpu);
        rp_sampler_cpu_seen(t, t->suspended_cpu_ns, now);
    } else {
        t->suspended_cpu_ns = t->cpu_seen_ns + (now - t->cpu_seen_at_ns);
    }
}

static void on_suspended(VALUE thread)
{
    rp_thread *t = rp_threads_find(thread);
    if (t) {
        rp_thread_cpu_suspended(&t->cpu);
        t->suspended_ns = rp_monotonic_ns();
        t->ready_ns = 0;
        if (rp_recordings_any_cpu_accepting())
            cpu_at_release(t, t->suspended_ns);
    }
}

static void on_ready(VALUE thread)
{
    rp_thread *t = rp_threads_find(thread);
    if (t && t->suspended_ns)
        t->ready_ns = rp_monotonic_ns();
}

/* Wall mode: suspended → ready is blocked, ready → now is wait, charged
 * to the stack the thread resumes on — the call that waited; none of it
 * before the recording's clock started (a thread that released the GVL
 * before a session began, or before sampling resumed). The thread's
 * running time before the release is not this stack's: it stays pending
 * for the next tick that finds the thread running, whose stack a tick
 * chose (a thread that works in bursts shorter than a tick between waits
 * had all its running time put on its waits before). */
static int resumed_wall(rp_thread *t, rp_rec_id id, int64_t now, rp_charge *charges)
{
    if (!t->suspended_ns)
        return 0; /* first sight of the thread: its clock starts now */
    rp_thread_clock *c = rp_sampler_clock(t, id);
    int64_t suspended = t->suspended_ns > c->prev_ns ? t->suspended_ns : c->prev_ns;
    int64_t ready = !t->ready_ns ? now : t->ready_ns > suspended ? t->ready_ns : suspended;
    c->pending_blocked_ns += ready - suspended;
    c->pending_wait_ns += now - ready;
    c->prev_ns += now - suspended; /* the next sample weighs only the running time */
    if (c->pending_blocked_ns + c->pending_wait_ns < rp_recording_get(id)->min_charge_ns)
        return 0;
    charges[0] = (rp_charge){RP_VM_GVL_BLOCKED, c->pending_blocked_ns, (uint8_t)id};
    charges[1] = (rp_charge){RP_VM_GVL_WAIT, c->pending_wait_ns, (uint8_t)id};
    c->pending_blocked_ns = c->pending_wait_ns = 0;
    return 2;
}

/* cpu mode: the CPU the thread used off the GVL (C code that released it
 * and computed, a system call's own work) belongs to the stack it resumes
 * on; the CPU it used running before the release stays pending for the
 * next tick that finds it running, as in wall mode. A wait's own CPU
 * (the system call's work, some 20 us for a sleep, more for a socket)
 * would otherwise go to the code that runs after it.
 *
 * The split needs the thread's CPU clock at the release and now, a
 * system call each, so it is made only after a stretch off the GVL of a
 * quarter of a millisecond (or half a period, when that is shorter): at
 * most 4,000 times a second a thread. After a shorter one, whose CPU is
 * less than its wall time, that CPU goes with the running time. The clock
 * at the release was read then, or is bounded by the last reading
 * (cpu_at_release): the split then gives the stretch less, never more,
 * than it used. At 100 Hz, with no split below half a period, a thread of
 * 0.3 ms bursts between 0.7 ms sleeps had its bursts charged 5% more than
 * they used; with the bound on the wall time since the last charge alone
 * (no reading at the release), Puma's threads had 40% of their waits' CPU
 * charged to their work. */
static int resumed_cpu(rp_thread *t, rp_rec_id id, rp_clock_reading *now, rp_charge *charges)
{
    if (!t->suspended_ns)
        return 0;
    rp_thread_clock *c = rp_sampler_clock(t, id);
    int64_t suspended = t->suspended_ns > c->prev_wall_ns ? t->suspended_ns : c->prev_wall_ns;
    int64_t min = rp_recording_get(id)->min_charge_ns;
    if (now->wall_ns - suspended < (min < OFF_GVL_SPLIT_NS ? min : OFF_GVL_SPLIT_NS))
        return 0;
    int64_t released = t->suspended_cpu_ns > c->prev_ns ? t->suspended_cpu_ns : c->prev_ns;
    int64_t off_cpu = rp_clock_reading_for(now, t, id) - released;
    if (off_cpu <= 0)
        return 0;
    c->prev_ns += off_cpu;
    c->pending_blocked_ns += off_cpu;
    if (c->pending_blocked_ns < min)
        return 0;
    charges[0] = (rp_charge){RP_VM_RUNNING, c->pending_blocked_ns, (uint8_t)id};
    c->pending_blocked_ns = 0;
    return 1;
}

/* The charges one recording has for a capture now, written to `out`;
 * returns how many. */
typedef int (*charges_fn)(rp_thread *t, rp_rec_id id, rp_clock_reading *now, rp_charge *out);

/* One capture for the charges of every accepting recording, computed on
 * the clock reading `now`; the agent's time from then on is kept out of
 * the thread's clocks. */
static void record_accepting(rp_thread *t, charges_fn charges_of, rp_clock_reading *now)
{
    rp_charge charges[RP_CHARGES_MAX];
    bool served[RP_RECORDINGS] = {false};
    int n = 0;
    for (int i = 0; i < RP_RECORDINGS; i++) {
        if (!atomic_load_explicit(&rp_recording_get((rp_rec_id)i)->accepting, memory_order_relaxed))
            continue;
        int added = charges_of(t, (rp_rec_id)i, now, charges + n);
        served[i] = added > 0;
        n += added;
    }
    if (n == 0)
        return;
    rp_sampler_record(t, charges, n);
    rp_sampler_own_time(t, served, now);
}

static int resumed_charges(rp_thread *t, rp_rec_id id, rp_clock_reading *now, rp_charge *out)
{
    return rp_recording_get(id)->cfg.mode == RP_MODE_WALL ? resumed_wall(t, id, now->wall_ns, out)
                                                          : resumed_cpu(t, id, now, out);
}

/* What the thread spent off the GVL since it released it, for its
 * requests (spans.h): blocked until it asked for the GVL back, then
 * waiting. */
static void account_resume(rp_thread *t, int64_t now)
{
    if (!t->suspended_ns)
        return;
    int64_t ready = t->ready_ns && t->ready_ns > t->suspended_ns ? t->ready_ns : now;
    t->acct_blocked_ns += ready - t->suspended_ns;
    t->acct_wait_ns += now - ready;
    if (requests)
        requests->blocked(t, ready - t->suspended_ns);
}

static void on_resumed(void)
{
    rp_thread *t = rp_sampler_current_thread();
    if (!t)
        return;
    rp_thread_cpu_resumed(&t->cpu);
    rp_tick_cpu_holder(&t->cpu, t->thread_seq);
    rp_clock_reading now = {.wall_ns = rp_monotonic_ns()};
    account_resume(t, now.wall_ns);
    record_accepting(t, resumed_charges, &now);
    t->suspended_ns = t->ready_ns = 0;
    t->resumed_ns = now.wall_ns;
}

/* Thread event hook — see the contexts at the top of this file. */
static void on_thread_event(rb_event_flag_t event, const rb_internal_thread_event_data_t *data,
                            void *unused)
{
    (void)unused;
    if (event & RUBY_INTERNAL_THREAD_EVENT_SUSPENDED) {
        rp_gvl_holder_suspended(data->thread); /* another Ractor's thread is never the holder */
    }
    /* Only at RESUMED: a dying Ractor's thread suspends after its
     * Ractor's main thread is gone, and rb_thread_main() would crash. */
    bool resumed = event & RUBY_INTERNAL_THREAD_EVENT_RESUMED;
    int main_ractor = resumed ? rp_ractors_is_main(data->thread) : 1;
    if (main_ractor < 0)
        main_ractor = in_main_ractor();
    if (!main_ractor) {
        bool first = !atomic_load(&rp_ractors_others_ran);
        rp_ractors_resumed(data->thread); /* another Ractor's: only its time */
        if (first) /* a tick aimed at the GVL holder before it saw the flag
                    * ends before this Ractor runs (gvl_holder.c) */
            rp_gvl_holder_gc_barrier();
        return;
    }
    if (resumed) {
        rp_gvl_holder_resumed(data->thread);
        rp_worker_program_resumed();
    }
    if (resumed || (event & RUBY_INTERNAL_THREAD_EVENT_SUSPENDED))
        rp_ractors_leave();
    if (!any_accepting())
        return;
    if (event & RUBY_INTERNAL_THREAD_EVENT_READY) {
        on_ready(data->thread);
    } else if (event & RUBY_INTERNAL_THREAD_EVENT_SUSPENDED) {
        on_suspended(data->thread);
    } else if (resumed) {
        on_resumed();
    }
}

/* --- GC ------------------------------------------------------------------ */

/* GC_ENTER: a segment starts. The thread's CPU clock is a system call,
 * read only when a cpu-mode recording needs it: on a busy machine a GC's
 * wall time can be several times the CPU it used. */
static void open_gc_segment(void)
{
    gc.segment_start = rp_monotonic_ns();
    gc.has_cpu = false;
    gc.thread = rp_sampler_current_thread();
    if (gc.thread && rp_recordings_any_cpu_accepting()) {
        gc.segment_cpu = rp_thread_cpu_now(&gc.thread->cpu);
        gc.has_cpu = true;
    }
}

/* Adds the GC time since the segment started to the thread's pending GC
 * time of every accepting recording — CPU time for cpu mode, wall time
 * for wall mode — and keeps its next regular sample from counting it
 * again. A request's GC time (spans.h) is wall time, as its others are. */
static void close_gc_segment(rp_vm_state state)
{
    int64_t now = rp_monotonic_ns();
    int64_t wall_span = now - gc.segment_start;
    gc.segment_start = now;
    rp_thread *t = gc.thread;
    if (!t)
        return;
    int64_t cpu_span = wall_span;
    if (gc.has_cpu) {
        int64_t cpu_now = rp_thread_cpu_now(&t->cpu);
        cpu_span = cpu_now - gc.segment_cpu;
        gc.segment_cpu = cpu_now;
    }
    if (wall_span > 0)
        t->acct_gc_ns += wall_span;
    for (int i = 0; i < RP_RECORDINGS; i++) {
        const rp_recording *r = rp_recording_get((rp_rec_id)i);
        if (!atomic_load_explicit(&r->accepting, memory_order_relaxed))
            continue;
        int64_t span = r->cfg.mode == RP_MODE_CPU ? cpu_span : wall_span;
        if (span <= 0)
            continue;
        rp_thread_clock *c = rp_sampler_clock(t, (rp_rec_id)i);
        if (state == RP_VM_GC_MARK)
            c->pending_gc_mark_ns += span;
        else
            c->pending_gc_sweep_ns += span;
        c->prev_ns += span;
    }
}

/* A recording's pending GC time, once there is enough of it. */
static int gc_charges(rp_thread *t, rp_rec_id id, rp_clock_reading *unused, rp_charge *out)
{
    (void)unused;
    rp_thread_clock *c = rp_sampler_clock(t, id);
    if (c->pending_gc_mark_ns + c->pending_gc_sweep_ns < rp_recording_get(id)->min_charge_ns)
        return 0;
    out[0] = (rp_charge){RP_VM_GC_MARK, c->pending_gc_mark_ns, (uint8_t)id};
    out[1] = (rp_charge){RP_VM_GC_SWEEP, c->pending_gc_sweep_ns, (uint8_t)id};
    c->pending_gc_mark_ns = c->pending_gc_sweep_ns = 0;
    return 2;
}

/* At the end of a GC step: one capture for every recording with enough
 * pending GC time. */
static void record_pending_gc(void)
{
    rp_thread *t = gc.thread;
    rp_clock_reading now = {.wall_ns = rp_monotonic_ns()};
    if (t)
        record_accepting(t, gc_charges, &now);
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
    if (!any_accepting())
        return;
    switch (event) {
    case RUBY_INTERNAL_EVENT_GC_ENTER:
        gc.in_gc = true;
        open_gc_segment();
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

/* The thread events the open recordings need: RESUMED and SUSPENDED in
 * both modes — when a thread released the GVL is what keeps its running
 * time apart from its time off the GVL (resumed_wall, resumed_cpu), and
 * with M:N threads what keeps the threads' CPU clocks (thread_cpu.h) —
 * and READY where the wait for the GVL is measured (wall mode, requests). */
static rb_event_flag_t needed_events(void)
{
    rb_event_flag_t events = RUBY_INTERNAL_THREAD_EVENT_RESUMED | RUBY_INTERNAL_THREAD_EVENT_SUSPENDED;
    if (requests) /* a request's time off the GVL, in every mode */
        events |= RUBY_INTERNAL_THREAD_EVENT_READY;
    for (int i = 0; i < RP_RECORDINGS; i++) {
        const rp_recording *r = rp_recording_get((rp_rec_id)i);
        if (r->open && r->cfg.mode == RP_MODE_WALL)
            events |= RUBY_INTERNAL_THREAD_EVENT_READY;
    }
    return events;
}

/* Thread end hook (GVL held, on the ending thread). */
static void on_thread_end(rb_event_flag_t event, VALUE data, VALUE self, ID mid, VALUE klass)
{
    (void)event, (void)data, (void)self, (void)mid, (void)klass;
    if (any_accepting())
        rp_sampler_charge_tail();
}

static bool end_hooked;

void rp_gvl_gc_update(void)
{
    if (!rp_recordings_any_open()) {
        rp_gvl_gc_stop();
        return;
    }
    rb_event_flag_t events = needed_events();
    if (gvl_hook && events != gvl_events) {
        rb_internal_thread_remove_event_hook(gvl_hook);
        gvl_hook = NULL;
    }
    if (!gvl_hook) {
        main_thread = rb_thread_main();
        rp_gvl_holder_start();
        gvl_hook = rb_internal_thread_add_event_hook(on_thread_event, events, NULL);
        gvl_events = events;
    }
    if (requests)
        requests->hook(true);
    if (!gc_hooked) {
        gc.phase = GC_IDLE;
        gc.in_gc = false;
        rb_add_event_hook(on_gc_event,
                          RUBY_INTERNAL_EVENT_GC_START | RUBY_INTERNAL_EVENT_GC_END_MARK |
                              RUBY_INTERNAL_EVENT_GC_END_SWEEP | RUBY_INTERNAL_EVENT_GC_ENTER |
                              RUBY_INTERNAL_EVENT_GC_EXIT,
                          Qnil);
        gc_hooked = true;
    }
    if (!end_hooked) {
        rb_add_event_hook(on_thread_end, RUBY_EVENT_THREAD_END, Qnil);
        end_hooked = true;
    }
}

void rp_gvl_gc_restart(void)
{
    rp_gvl_gc_stop();
    rp_gvl_gc_update();
}

void rp_gvl_gc_stop(void)
{
    if (gvl_hook) {
        rp_gvl_holder_stop();
        rb_internal_thread_remove_event_hook(gvl_hook);
        gvl_hook = NULL;
    }
    if (gc_hooked) {
        rb_remove_event_hook(on_gc_event);
        gc_hooked = false;
    }
    if (end_hooked) {
        rb_remove_event_hook(on_thread_end);
        end_hooked = false;
    }
    if (requests)
        requests->hook(false);
}

void rp_gvl_gc_follow_requests(const rp_gvl_gc_requests *r)
{
    requests = r;
    rp_gvl_gc_update();
}
