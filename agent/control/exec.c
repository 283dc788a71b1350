/*
 * agent/control/exec.c — the ways out of a process image that skip Ruby's
 * end procs: _exit (Kernel#exit!) and the exec family (Kernel#exec,
 * system, spawn). Interposed in every process that preloads the agent.
 *
 * Owns: writing the profile of the profiled Ruby thread that leaves
 * through them, beginning a new one when an exec fails, and the session
 * handed to the new program in its environment (child_env.h). Anything
 * but this process's profiled Ruby thread (a spawn child after fork or
 * vfork, another program) goes straight through, allocating nothing.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../base/child_env.h"
#include "whole.h"

/* Interposes _exit(): Kernel#exit! (and Process.daemon's parent) leave
 * through it without running end procs. Every process that preloads the
 * agent passes here, so anything but our own profiled Ruby thread goes
 * straight to the real _exit. */
__attribute__((visibility("default"), noreturn)) void _exit(int status)
{
    if (rp_whole_on_profiled_ruby_thread())
        rp_whole_end_profile();
    /* What glibc's _exit does; a system call needs no symbol lookup, which
     * matters in vfork children and keeps the load of every process cheap. */
    for (;;)
        syscall(SYS_exit_group, status);
}

/* A profile left at exec: Kernel#exec replaces the image without running
 * end procs. If the exec fails, the process goes on and gets a new profile
 * (a new start time, so a new file). Spawn children (fork or vfork, then
 * exec) have a different pid than owner_pid and pass straight through. */
static void before_exec(bool *was_profiling)
{
    *was_profiling = rp_whole_on_profiled_ruby_thread();
    if (*was_profiling)
        rp_whole_end_profile();
}

static void after_failed_exec(bool was_profiling)
{
    if (was_profiling)
        rp_whole_begin_fresh_profile();
}

/* The exec itself: glibc's execve is this system call, and execv is
 * execve with `environ`. The child's environment gets the session (see
 * child_env.h), built on this stack: no allocation, even in a vfork child. */
static int exec_with_child_env(const char *path, char *const argv[], char *const envp[])
{
    bool was_profiling;
    before_exec(&was_profiling);
    char *env[rp_child_env_capacity(envp)];
    char scratch[rp_child_env_scratch_size(envp)];
    char *const *child_env = rp_child_env(envp, env, scratch, sizeof(scratch));
    int rc = (int)syscall(SYS_execve, path, argv, child_env);
    int saved_errno = errno;
    after_failed_exec(was_profiling);
    errno = saved_errno;
    return rc;
}

__attribute__((visibility("default"))) int execve(const char *path, char *const argv[],
                                                  char *const envp[])
{
    return exec_with_child_env(path, argv, envp);
}

__attribute__((visibility("default"))) int execv(const char *path, char *const argv[])
{
    return exec_with_child_env(path, argv, environ);
}

/* execl and execle (Ruby runs shell commands with them): the variadic
 * arguments become an argv array on the stack. */
static size_t count_args(va_list ap)
{
    size_t n = 1; /* arg0 */
    while (va_arg(ap, const char *))
        n++;
    return n;
}

static void collect_args(const char *arg0, va_list ap, char **argv, size_t n)
{
    argv[0] = (char *)arg0;
    for (size_t i = 1; i < n; i++)
        argv[i] = va_arg(ap, char *);
    argv[n] = NULL;
}

__attribute__((visibility("default"))) int execl(const char *path, const char *arg0, ...)
{
    va_list ap, count;
    va_start(ap, arg0);
    va_copy(count, ap);
    size_t n = count_args(count); /* glibc declares arg0 non-null */
    va_end(count);
    char *argv[n + 1];
    collect_args(arg0, ap, argv, n);
    va_end(ap);
    return exec_with_child_env(path, argv, environ);
}

__attribute__((visibility("default"))) int execle(const char *path, const char *arg0, ...)
{
    va_list ap, count;
    va_start(ap, arg0);
    va_copy(count, ap);
    size_t n = count_args(count);
    va_end(count);
    char *argv[n + 1];
    collect_args(arg0, ap, argv, n);
    char *const *envp = va_arg(ap, char *const *); /* after the NULL */
    va_end(ap);
    return exec_with_child_env(path, argv, envp);
}

