/*
 * agent/base/agent_thread.c — the agent's own threads. See agent_thread.h.
 */
#include "agent_thread.h"

#include <signal.h>
#include <sys/resource.h>
#include <time.h>

#include "../../common/clock.h"

int rp_agent_thread_start(rp_agent_thread *t, const char *name, void *(*main)(void *))
{
    atomic_store(&t->accounted, false);
    sigset_t all, saved;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    int rc = pthread_create(&t->id, NULL, main, NULL);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    if (rc != 0)
        return rc;
    pthread_setname_np(t->id, name);
    t->running = true;
    return 0;
}

bool rp_agent_thread_join(rp_agent_thread *t)
{
    if (!t->running)
        return true;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 5;
    bool ended = pthread_timedjoin_np(t->id, NULL, &deadline) == 0;
    t->running = false;
    return ended;
}

void rp_agent_thread_account(rp_agent_thread *t)
{
    struct rusage usage;
    if (getrusage(RUSAGE_THREAD, &usage) == 0) {
        atomic_fetch_add(&t->ended_voluntary, usage.ru_nvcsw);
        atomic_fetch_add(&t->ended_involuntary, usage.ru_nivcsw);
    }
    atomic_fetch_add(&t->ended_cpu_ns, rp_clock_ns(CLOCK_THREAD_CPUTIME_ID));
    atomic_store(&t->accounted, true);
}

int64_t rp_agent_thread_cpu_ns(rp_agent_thread *t)
{
    int64_t ns = atomic_load(&t->ended_cpu_ns);
    clockid_t clock;
    struct timespec now;
    /* Only while a join waits can the thread end between these reads
     * (its share is then missed): every caller is on the GVL side, as
     * the joins are. */
    if (t->running && !atomic_load(&t->accounted) && pthread_getcpuclockid(t->id, &clock) == 0 &&
        clock_gettime(clock, &now) == 0)
        ns += rp_timespec_ns(now);
    return ns;
}

void rp_agent_thread_switches(rp_agent_thread *t, long *voluntary, long *involuntary)
{
    *voluntary = atomic_load(&t->ended_voluntary);
    *involuntary = atomic_load(&t->ended_involuntary);
}

void rp_agent_thread_forget(rp_agent_thread *t)
{
    t->running = false;
    atomic_store(&t->ended_cpu_ns, 0);
    atomic_store(&t->ended_voluntary, 0);
    atomic_store(&t->ended_involuntary, 0);
}
