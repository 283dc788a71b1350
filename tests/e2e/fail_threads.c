/*
 * A library to preload beside the agent in tests: pthread_create fails
 * (EAGAIN, as at a thread limit) for the agent's threads chosen by
 * RPERF_TEST_FAIL_THREADS, a list of 1-based positions among the threads
 * librperf-agent.so starts ("2": its second; "1,2": both), while every
 * other thread of the process starts as usual.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static _Atomic int agent_calls;

static bool from_agent(const void *caller)
{
    Dl_info info;
    return dladdr(caller, &info) && info.dli_fname && strstr(info.dli_fname, "librperf-agent");
}

static bool chosen(int position)
{
    const char *list = getenv("RPERF_TEST_FAIL_THREADS");
    for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (atoi(p) == position)
            return true;
    return false;
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
    static create_fn *real;
    if (!real)
        real = (create_fn *)dlsym(RTLD_NEXT, "pthread_create");
    if (from_agent(__builtin_return_address(0)) && chosen(atomic_fetch_add(&agent_calls, 1) + 1))
        return EAGAIN;
    return real(thread, attr, start, arg);
}
