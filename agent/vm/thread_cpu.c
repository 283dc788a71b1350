/*
 * agent/vm/thread_cpu.c — a Ruby thread's CPU clock. See thread_cpu.h.
 */
#include "thread_cpu.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "../../common/clock.h"

static bool mn;

/* Per native thread: how many times a Ruby thread was resumed on it. Its
 * address names the native thread. */
static __thread uint64_t native_resumes;

void rp_thread_cpu_init(void)
{
    const char *v = getenv("RUBY_MN_THREADS");
    mn = v && atoi(v) > 0;
}

bool rp_thread_cpu_mn(void)
{
    return mn;
}

void rp_thread_cpu_reset(rp_thread_cpu *c)
{
    *c = (rp_thread_cpu){0};
    c->has_native_clock = !mn && pthread_getcpuclockid(pthread_self(), &c->native_clock) == 0;
}

static int64_t native_ns(void)
{
    return rp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* Whether the offset still holds: the thread is on the native thread it
 * was last resumed on, and no other Ruby thread was resumed there since. */
static bool attached(const rp_thread_cpu *c)
{
    return c->native == &native_resumes && c->resumes == native_resumes;
}

/* The thread's clock goes on from its last value on this native thread. */
static void attach(rp_thread_cpu *c, int64_t native)
{
    c->offset = c->last - native;
    c->native = &native_resumes;
    c->resumes = native_resumes;
}

int64_t rp_thread_cpu_now(rp_thread_cpu *c)
{
    int64_t native = native_ns();
    if (!mn)
        return native;
    if (!attached(c))
        attach(c, native); /* a resume the hooks did not see */
    c->last = native + c->offset;
    return c->last;
}

int64_t rp_thread_cpu_peek(const rp_thread_cpu *c)
{
    if (mn || !c->has_native_clock)
        return c->last;
    struct timespec ts;
    if (clock_gettime(c->native_clock, &ts) != 0)
        return c->last; /* the native thread is gone */
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void rp_thread_cpu_resumed(rp_thread_cpu *c)
{
    if (!mn)
        return;
    bool alone = attached(c); /* nobody else ran here since it left */
    native_resumes++;
    if (alone)
        c->resumes = native_resumes;
    else
        attach(c, native_ns());
}

void rp_thread_cpu_suspended(rp_thread_cpu *c)
{
    if (mn && attached(c))
        c->last = native_ns() + c->offset;
}
