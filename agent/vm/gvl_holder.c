/*
 * agent/vm/gvl_holder.c — aiming each tick at the GVL holder. See gvl_holder.h.
 *
 * Contexts and what each touches:
 * - rp_gvl_holder_resumed: RESUMED hook, GVL held, on the thread that got
 *   it; stores that thread's rb_thread_t pointer.
 * - rp_gvl_holder_suspended: SUSPENDED hook, on the thread letting go of
 *   the GVL; clears the holder if it is that thread (a compare and swap).
 * - rp_gvl_holder_exited: EXITED hook, without the GVL, on the exiting
 *   thread; takes the lock, forgets the thread if it is the holder.
 * - rp_gvl_holder_gc_barrier: GC_ENTER hook, GVL held; takes and drops the
 *   lock.
 * - rp_gvl_holder_interrupt, rp_gvl_holder_tick: the ticker thread (or
 *   another trigger of the job); tries the lock, reads the holder's
 *   current execution context and ORs one bit into its interrupt flag, as
 *   Ruby's own RUBY_VM_SET_POSTPONED_JOB_INTERRUPT does; a tick also notes
 *   the context, its current control frame and the time. Never waits.
 * - rp_gvl_holder_tick_found_me: the sampling job, on its own thread;
 *   compares its own context and frame with the noted ones.
 *
 * Memory safety: the worker reads rb_thread_t.ec and writes into that
 * execution context only while it holds `busy`. A thread's rb_thread_t and
 * its root fiber's context are freed when GC collects the dead Thread,
 * after its EXITED hook, which takes `busy` and forgets the thread. Other
 * fibers' contexts are freed by GC only; GC_ENTER waits for `busy`, so a
 * context the worker read before a fiber switch cannot be freed under it,
 * and one read after GC began is the running fiber's, which GC keeps.
 * Ruby 3.4 calls GC_ENTER only when a main-Ractor thread runs the GC: once
 * another Ractor has run (and could run a GC that frees a main-Ractor
 * fiber without that barrier), ticks are no longer aimed at the holder and
 * go through rb_postponed_job_trigger alone; the first thread of another
 * Ractor passes the barrier once after it set that flag (gvl_gc.c), so a
 * tick already inside has ended before that Ractor runs any code. Ruby
 * 4.0 calls GC hooks for every Ractor's GC.
 */
#include "gvl_holder.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "../base/ruby_layout.h"
#include "ractors.h"

/* Ruby 3.4's vm_core.h (and ruby_layout.h), checked on the running Ruby by
 * layout_holds(). */
enum {
    EC_CFP_OFFSET = 16,            /* rb_execution_context_t.cfp */
    EC_INTERRUPT_FLAG_OFFSET = 32, /* rb_execution_context_t.interrupt_flag */
    EC_THREAD_PTR_OFFSET = 48,     /* rb_execution_context_t.thread_ptr */
    CONTROL_FRAME_SIZE = 56,       /* sizeof(rb_control_frame_t): seven words */
};
#define POSTPONED_JOB_INTERRUPT_MASK 0x04u

static bool usable;
static _Atomic(char *) holder; /* rb_thread_t of the GVL holder, or NULL */
static atomic_flag busy = ATOMIC_FLAG_INIT;

/* Where the first tick since the sampling job last ran found the holder:
 * its execution context and that context's current control frame, both
 * only compared, never read through. The first: the ticks that come
 * while a C method runs without a safepoint all wait for one job, and
 * the later ones may find the thread in the callback already. The ticker
 * writes them only while `tick_noted` is clear and then sets it; the job
 * clears it. A sequence lock (odd: writing) tells a job that reads them
 * while a new tick writes. */
static atomic_bool tick_noted;
static _Atomic uint32_t tick_seq;
static _Atomic(char *) tick_ec;
static _Atomic(char *) tick_cfp;
static _Atomic int64_t tick_ns;

static char *current_ec(char *th)
{
    return __atomic_load_n((char **)(th + RP_TH_EC_OFFSET), __ATOMIC_RELAXED);
}

static char *current_cfp(char *ec)
{
    return __atomic_load_n((char **)(ec + EC_CFP_OFFSET), __ATOMIC_RELAXED);
}

static uint32_t *interrupt_flag(char *ec)
{
    return (uint32_t *)(ec + EC_INTERRUPT_FLAG_OFFSET);
}

static void lock_busy(void)
{
    while (atomic_flag_test_and_set_explicit(&busy, memory_order_acquire))
        sched_yield(); /* the worker holds it for a few loads and one OR */
}

static void unlock_busy(void)
{
    atomic_flag_clear_explicit(&busy, memory_order_release);
}

/* The offsets hold when the calling thread's structures point back at
 * each other through them and Ruby's own trigger sets the bit we would
 * set, at the place we would set it. */
static bool layout_holds(rb_postponed_job_handle_t job)
{
    char *th = rp_checked_current_thread_struct();
    if (!th)
        return false;
    char *ec = current_ec(th);
    if (!ec || ((uintptr_t)ec % sizeof(void *)) != 0 ||
        *(char **)(ec + EC_THREAD_PTR_OFFSET) != th)
        return false;
    uint32_t *flag = interrupt_flag(ec);
    if (__atomic_load_n(flag, __ATOMIC_SEQ_CST) & POSTPONED_JOB_INTERRUPT_MASK)
        return false; /* already set: the probe could not tell */
    rb_postponed_job_trigger(job);
    return (__atomic_load_n(flag, __ATOMIC_SEQ_CST) & POSTPONED_JOB_INTERRUPT_MASK) != 0;
}

bool rp_gvl_holder_init(rb_postponed_job_handle_t job)
{
    usable = layout_holds(job);
    return usable;
}

bool rp_gvl_holder_usable(void)
{
    return usable;
}

void rp_gvl_holder_start(void)
{
    if (usable)
        atomic_store_explicit(&holder, rp_thread_struct(rb_thread_current()), memory_order_release);
}

void rp_gvl_holder_stop(void)
{
    lock_busy();
    atomic_store_explicit(&holder, NULL, memory_order_relaxed);
    unlock_busy();
}

void rp_gvl_holder_resumed(VALUE thread)
{
    if (usable)
        atomic_store_explicit(&holder, rp_thread_struct(thread), memory_order_release);
}

/* No lock: the worker may still aim a tick at the thread that just let go
 * of the GVL, whose context is alive; the job then runs when it is back. */
void rp_gvl_holder_suspended(VALUE thread)
{
    if (!usable)
        return;
    char *expected = rp_thread_struct(thread);
    atomic_compare_exchange_strong_explicit(&holder, &expected, NULL, memory_order_release,
                                            memory_order_relaxed);
}

bool rp_gvl_holder_none(void)
{
    return usable && atomic_load_explicit(&holder, memory_order_acquire) == NULL;
}

void rp_gvl_holder_exited(VALUE thread)
{
    if (!usable)
        return;
    char *th = rp_thread_struct(thread);
    lock_busy();
    char *expected = th;
    atomic_compare_exchange_strong_explicit(&holder, &expected, NULL, memory_order_relaxed,
                                            memory_order_relaxed);
    unlock_busy();
}

void rp_gvl_holder_gc_barrier(void)
{
    if (!usable)
        return;
    lock_busy();
    unlock_busy();
}

/* Whether a GC could free a fiber without passing the GC_ENTER barrier. */
static bool gc_unguarded(void)
{
#if RUBY_API_VERSION_MAJOR < 4
    return atomic_load_explicit(&rp_ractors_others_ran, memory_order_acquire);
#else
    return false;
#endif
}

/* Ticker: notes where the tick found the holder, unless a tick before it
 * did and no job has run since. */
static void note_tick(char *ec, char *cfp, int64_t now_ns)
{
    if (atomic_load_explicit(&tick_noted, memory_order_acquire))
        return;
    uint32_t s = atomic_load_explicit(&tick_seq, memory_order_relaxed);
    atomic_store_explicit(&tick_seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&tick_ec, ec, memory_order_relaxed);
    atomic_store_explicit(&tick_cfp, cfp, memory_order_relaxed);
    atomic_store_explicit(&tick_ns, now_ns, memory_order_relaxed);
    atomic_store_explicit(&tick_seq, s + 2, memory_order_release);
    atomic_store_explicit(&tick_noted, true, memory_order_release);
}

/* Sets the interrupt on the holder's current context; returns that
 * context (NULL: none known) and its current frame in *cfp. */
static char *interrupt_holder(char **cfp)
{
    *cfp = NULL;
    if (gc_unguarded() || atomic_flag_test_and_set_explicit(&busy, memory_order_acquire))
        return NULL; /* Ractors on 3.4, or a hook forgetting a thread: the usual path */
    char *th = atomic_load_explicit(&holder, memory_order_acquire);
    char *ec = th ? current_ec(th) : NULL;
    if (ec) {
        *cfp = current_cfp(ec);
        __atomic_fetch_or(interrupt_flag(ec), POSTPONED_JOB_INTERRUPT_MASK, __ATOMIC_SEQ_CST);
    }
    unlock_busy();
    return ec;
}

void rp_gvl_holder_interrupt(void)
{
    char *cfp;
    interrupt_holder(&cfp);
}

void rp_gvl_holder_tick(int64_t now_ns)
{
    char *cfp, *ec = interrupt_holder(&cfp);
    if (ec)
        note_tick(ec, cfp, now_ns);
}

bool rp_gvl_holder_tick_found_me(rp_tick_position *pos)
{
    *pos = (rp_tick_position){0, 0};
    if (!usable || !atomic_exchange_explicit(&tick_noted, false, memory_order_acq_rel))
        return false;
    uint32_t s = atomic_load_explicit(&tick_seq, memory_order_acquire);
    char *ec_then = atomic_load_explicit(&tick_ec, memory_order_relaxed);
    char *cfp_then = atomic_load_explicit(&tick_cfp, memory_order_relaxed);
    int64_t at = atomic_load_explicit(&tick_ns, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    if ((s & 1) || atomic_load_explicit(&tick_seq, memory_order_relaxed) != s || !ec_then)
        return false;
    char *ec = current_ec(rp_thread_struct(rb_thread_current()));
    if (ec != ec_then)
        return false;
    pos->tick_ns = at;
    /* Control frames grow down from the top of the context's VM stack. */
    ptrdiff_t bytes = current_cfp(ec) - cfp_then;
    if (bytes < 0 && -bytes % CONTROL_FRAME_SIZE == 0)
        pos->pushed = (int)(-bytes / CONTROL_FRAME_SIZE);
    return true;
}

void rp_gvl_holder_forget(void)
{
    atomic_store_explicit(&holder, NULL, memory_order_relaxed);
    atomic_store_explicit(&tick_noted, false, memory_order_relaxed);
    atomic_store_explicit(&tick_seq, 0, memory_order_relaxed);
    atomic_flag_clear_explicit(&busy, memory_order_relaxed);
}
