/*
 * common/clock.h — clock readings in nanoseconds.
 *
 * Owns: turning a timespec or timeval into int64 nanoseconds, and reading
 * a clock that way. Header-only: the sampler reads the clock on every
 * sample and must not pay a call for it. Safe in any context, signal
 * handlers included (clock_gettime is async-signal-safe).
 */
#ifndef RPERF_COMMON_CLOCK_H
#define RPERF_COMMON_CLOCK_H

#include <stdint.h>
#include <sys/time.h>
#include <time.h>

static inline int64_t rp_timespec_ns(struct timespec ts)
{
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int64_t rp_timeval_ns(struct timeval tv)
{
    return (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
}

/* `clock` now, in ns (CLOCK_MONOTONIC and CLOCK_REALTIME are vDSO reads;
 * CLOCK_THREAD_CPUTIME_ID is a system call). */
static inline int64_t rp_clock_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return rp_timespec_ns(ts);
}

#endif
