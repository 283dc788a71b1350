/*
 * agent/vm/thread_cpu.h — a Ruby thread's CPU clock, under every thread model.
 *
 * Owns: the CPU time of one Ruby thread. With 1:1 threads (Ruby's default)
 * each Ruby thread has a native thread of its own, whose CPU clock
 * (CLOCK_THREAD_CPUTIME_ID) is the Ruby thread's. With M:N threads
 * (RUBY_MN_THREADS=1) several Ruby threads take turns on a few native
 * threads, and a native thread's clock counts all of them: the Ruby
 * thread's clock is then the native clock plus an offset, kept across the
 * thread event hooks — SUSPENDED notes the thread's clock as it leaves the
 * GVL; RESUMED on a native thread where another Ruby thread ran meanwhile
 * rebases the offset there, so the others' time is not counted. A thread
 * that comes back to the native thread nobody else used keeps counting it
 * (C code that ran without the GVL on it was the thread's own work).
 *
 * Contexts: all on the Ruby thread whose clock it is, on the native thread
 * running it — the sampling job and RESUMED with the GVL, SUSPENDED as it
 * releases the GVL. A clock is touched by its own thread only; another
 * thread may only peek at it (rp_thread_cpu_peek).
 */
#ifndef RPERF_AGENT_THREAD_CPU_H
#define RPERF_AGENT_THREAD_CPU_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct rp_thread_cpu {
    int64_t offset;       /* M:N: the thread's clock minus its native thread's */
    int64_t last;         /* M:N: the thread's clock when last read or suspended */
    const void *native;   /* M:N: the native thread it last ran on, or NULL */
    uint64_t resumes;     /* M:N: that native thread's resume count, after its own */
    clockid_t native_clock; /* 1:1: its native thread's CPU clock, for a peek */
    bool has_native_clock;
} rp_thread_cpu;

/* Main thread at start: which model the main Ractor's threads run on
 * (Ruby's own test of RUBY_MN_THREADS). */
void rp_thread_cpu_init(void);

/* Whether the main Ractor's threads are M:N (they need SUSPENDED in cpu
 * mode too). */
bool rp_thread_cpu_mn(void);

/* On the thread, a new record: its clock starts at 0 where it is first
 * read. */
void rp_thread_cpu_reset(rp_thread_cpu *c);

/* The thread's CPU time now, in ns (a system call). */
int64_t rp_thread_cpu_now(rp_thread_cpu *c);

/* Another thread (GVL held): the clock of the thread `c` is the clock of
 * as far as it can be read from elsewhere — 1:1, its native thread's CPU
 * clock; M:N, its value when it was last read or released the GVL (it
 * runs on no native thread of its own). */
int64_t rp_thread_cpu_peek(const rp_thread_cpu *c);

/* Thread event hooks, M:N only (no-ops in 1:1). */
void rp_thread_cpu_resumed(rp_thread_cpu *c);
void rp_thread_cpu_suspended(rp_thread_cpu *c);

#endif
