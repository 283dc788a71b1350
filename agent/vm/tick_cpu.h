/*
 * agent/vm/tick_cpu.h — the running thread's CPU clock, read by the ticker.
 *
 * Owns: which Ruby thread last said it holds the GVL (its native CPU
 * clock and thread_seq), and the ticker's reading of that clock at each
 * tick, handed to the sampling job that tick starts.
 *
 * Why: in cpu mode each sample is weighed by the thread's CPU time since
 * its previous one. CLOCK_THREAD_CPUTIME_ID has no vDSO path: read by the
 * program's own thread it is a system call inside every sample (1-2 µs on
 * these machines, most of a sample's cost). Any thread may read another
 * thread's CPU clock (pthread_getcpuclockid), so the ticker reads the GVL
 * holder's just before it triggers the job, and the job, on that thread,
 * takes the value instead. The CPU the thread uses between the tick and
 * the safepoint is counted in its next sample, as is a signal-driven
 * profiler's between the signal and its job.
 *
 * A reading is for one thread (its thread_seq: a native thread's clock id
 * comes back with a reused thread id) and from the latest tick only; a
 * job that finds none for itself reads its own clock, as before. With M:N
 * threads a native clock counts several Ruby threads: nothing is said and
 * nothing is taken.
 *
 * Contexts: rp_tick_cpu_holder on a Ruby thread holding the GVL (the
 * sampling job, RESUMED); rp_tick_cpu_read on the ticker thread
 * (async-signal-safe: atomics and clock_gettime); rp_tick_cpu_take in the
 * sampling job; rp_tick_cpu_forget in a fork child, single-threaded.
 */
#ifndef RPERF_AGENT_TICK_CPU_H
#define RPERF_AGENT_TICK_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "thread_cpu.h"

/* GVL held, on the thread whose clock `c` is: it holds the GVL now. */
void rp_tick_cpu_holder(const rp_thread_cpu *c, uint32_t thread_seq);

/* Ticker, at the tick it read at `now_ns` (CLOCK_MONOTONIC): reads the
 * holder's CPU clock, for the job this tick triggers. */
void rp_tick_cpu_read(int64_t now_ns);

/* Sampling job, on the thread whose clock `c` is: the latest tick's
 * reading of its clock into *ns, and when the tick read it
 * (CLOCK_MONOTONIC) into *at_ns, when the latest tick read its clock. */
bool rp_tick_cpu_take(const rp_thread_cpu *c, uint32_t thread_seq, int64_t *ns, int64_t *at_ns);

/* Fork child: the parent's threads are gone. */
void rp_tick_cpu_forget(void);

#endif
