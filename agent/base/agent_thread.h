/*
 * agent/base/agent_thread.h — the agent's own threads in the program's process.
 *
 * Owns: what every background thread of the agent has in common (the
 * worker and the ticker, sampling/): it starts with every signal blocked,
 * so that the program's signals always reach the program's threads, and
 * bears its name from the start (/proc shows it before it first runs); it
 * is joined with a deadline, so that the program's exit never waits on
 * the agent for long; and the CPU time and context switches it took are
 * added up as it ends — they are the agent's, not the program's
 * (worker_cpu_ns, stat's context switches).
 *
 * Context: start, join and the readings on a Ruby thread holding the
 * GVL; rp_agent_thread_account by the thread itself, as the last thing
 * it does; rp_agent_thread_forget in a fork child.
 */
#ifndef RPERF_AGENT_BASE_AGENT_THREAD_H
#define RPERF_AGENT_BASE_AGENT_THREAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct rp_agent_thread {
    pthread_t id;
    bool running;             /* started and not joined: the starter's */
    atomic_bool accounted;    /* the running one has added its usage */
    _Atomic int64_t ended_cpu_ns;
    _Atomic long ended_voluntary, ended_involuntary;
} rp_agent_thread;

/* Starts `main` as a thread named `name`, every signal blocked in it.
 * Returns 0 or an errno value. */
int rp_agent_thread_start(rp_agent_thread *t, const char *name, void *(*main)(void *));

/* Joins it, waiting 5 s at most. Returns false when it did not end: what
 * it works on must then not be touched. Idempotent. */
bool rp_agent_thread_join(rp_agent_thread *t);

/* The thread itself, as it ends: adds its CPU time and context switches. */
void rp_agent_thread_account(rp_agent_thread *t);

/* The CPU time of the threads started with `t` so far (those that ended
 * and the running one), ns; the context switches of those that ended. */
int64_t rp_agent_thread_cpu_ns(rp_agent_thread *t);
void rp_agent_thread_switches(rp_agent_thread *t, long *voluntary, long *involuntary);

/* Fork child: no such thread runs here, and the parent's usage is not
 * this process's. */
void rp_agent_thread_forget(rp_agent_thread *t);

#endif
