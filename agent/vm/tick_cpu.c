/*
 * agent/vm/tick_cpu.c — the running thread's CPU clock, read by the
 * ticker. See tick_cpu.h.
 *
 * The reading is a sequence lock with one writer, the ticker: readers
 * that see the sequence odd or changed take nothing and read their own
 * clock.
 */
#include "tick_cpu.h"

#include <stdatomic.h>
#include <time.h>

#include "../../common/clock.h"

/* The holder, one word so that a tick never reads one thread's clock
 * under another's number: thread_seq << 32 | its clock id (thread CPU
 * clock ids are never 0). 0: nobody said. */
static _Atomic uint64_t holder;

static _Atomic uint32_t seq;      /* odd while the ticker writes */
static _Atomic uint64_t read_for; /* the holder whose clock it read, or 0 */
static _Atomic int64_t read_ns;
static _Atomic int64_t read_at_ns; /* the tick's CLOCK_MONOTONIC */

static uint64_t holder_word(const rp_thread_cpu *c, uint32_t thread_seq)
{
    if (!c->has_native_clock || thread_seq == 0)
        return 0;
    return (uint64_t)thread_seq << 32 | (uint32_t)c->native_clock;
}

void rp_tick_cpu_holder(const rp_thread_cpu *c, uint32_t thread_seq)
{
    uint64_t word = holder_word(c, thread_seq);
    if (word && atomic_load_explicit(&holder, memory_order_relaxed) != word)
        atomic_store_explicit(&holder, word, memory_order_relaxed);
}

void rp_tick_cpu_read(int64_t now_ns)
{
    uint64_t who = atomic_load_explicit(&holder, memory_order_relaxed);
    struct timespec ts;
    if (who && clock_gettime((clockid_t)(int32_t)(uint32_t)who, &ts) != 0)
        who = 0; /* its thread ended */
    uint32_t s = atomic_load_explicit(&seq, memory_order_relaxed);
    atomic_store_explicit(&seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&read_for, who, memory_order_relaxed);
    atomic_store_explicit(&read_ns, who ? rp_timespec_ns(ts) : 0, memory_order_relaxed);
    atomic_store_explicit(&read_at_ns, now_ns, memory_order_relaxed);
    atomic_store_explicit(&seq, s + 2, memory_order_release);
}

bool rp_tick_cpu_take(const rp_thread_cpu *c, uint32_t thread_seq, int64_t *ns, int64_t *at_ns)
{
    uint64_t me = holder_word(c, thread_seq);
    uint32_t s = atomic_load_explicit(&seq, memory_order_acquire);
    if (!me || (s & 1))
        return false;
    uint64_t who = atomic_load_explicit(&read_for, memory_order_relaxed);
    int64_t value = atomic_load_explicit(&read_ns, memory_order_relaxed);
    int64_t at = atomic_load_explicit(&read_at_ns, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&seq, memory_order_relaxed) != s || who != me)
        return false;
    *ns = value;
    *at_ns = at;
    return true;
}

void rp_tick_cpu_forget(void)
{
    atomic_store_explicit(&holder, 0, memory_order_relaxed);
    atomic_store_explicit(&read_for, 0, memory_order_relaxed);
    atomic_store_explicit(&seq, 0, memory_order_relaxed);
}
