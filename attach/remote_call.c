/*
 * attach/remote_call.c — a function call on a borrowed thread. See
 * remote_call.h.
 *
 * How a call is made (what gdb does for `call f()`): the thread, stopped
 * by PTRACE_INTERRUPT inside a system call, gets its registers replaced —
 * the instruction pointer at the function, the arguments in rdi/rsi, the
 * stack pointer below its red zone with a return address of 0 pushed —
 * and orig_rax set to -1, so the kernel does not treat the registers as
 * an interrupted system call to restart. The function returns to address
 * 0, the fault stops the thread again (the tracer sees the SIGSEGV before
 * any handler), we read rax and put the saved registers back, and the
 * signal is never delivered. With its registers back the thread returns
 * from its system call as after any stop (SIGSTOP, gdb): restarted where
 * the kernel restarts that call, EINTR where it does not — epoll_wait,
 * which Ruby's timer thread retries (thread_pthread_mn.c).
 *
 * The fault must reach the tracer without touching the program's
 * handler: the kernel resets the handler of a fault signal that is
 * blocked or ignored to SIG_DFL when it forces it. The caller borrows
 * only a thread that neither blocks nor ignores SIGSEGV
 * (rp_target_thread_takes_segv).
 */
#include "remote_call.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef __x86_64__
#error "rperf-attach calls functions in another process the x86-64 way only"
#endif

/* Below the stack pointer: the red zone (128 bytes, the ABI's), then what
 * we push, then the callee's frames. */
#define RED_ZONE 128
#define PUSH_ROOM 16384

struct rp_borrowed {
    pid_t pid, tid;
    int mem_fd;
    struct user_regs_struct saved;
    uint64_t pushed; /* lowest address used by pushes so far */
    int pending_signal; /* the program's, arrived during a call: delivered at detach */
    int64_t stopped_at_ns;
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Waits for the thread's next stop, at most `timeout_ms`: its wait
 * status, or -1 (timeout: errno ETIMEDOUT; gone: ECHILD/ESRCH). */
static int wait_stop(pid_t tid, int timeout_ms)
{
    int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000;
    for (;;) {
        int status;
        pid_t got = waitpid(tid, &status, __WALL | WNOHANG);
        if (got == tid) {
            if (WIFEXITED(status) || WIFSIGNALED(status)) {
                errno = ESRCH;
                return -1;
            }
            return status;
        }
        if (got < 0)
            return -1;
        if (now_ns() > deadline) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct timespec pause = {0, 20000};
        nanosleep(&pause, NULL);
    }
}

static bool fail(char *why, size_t size, const char *what)
{
    int err = errno;
    snprintf(why, size, "%s: %s", what, err == ESRCH || err == ECHILD ? "the process went away" : strerror(err));
    errno = err;
    return false;
}

rp_borrowed *rp_borrow(pid_t pid, pid_t tid, bool (*syscall_ok)(long nr), char *why, size_t size)
{
    if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) != 0) {
        fail(why, size, "cannot trace it");
        return NULL;
    }
    rp_borrowed *b = calloc(1, sizeof(*b));
    if (!b) {
        ptrace(PTRACE_DETACH, tid, NULL, NULL);
        snprintf(why, size, "out of memory");
        return NULL;
    }
    b->pid = pid;
    b->tid = tid;
    b->mem_fd = -1;
    int status = -1;
    if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) == 0)
        status = wait_stop(tid, 1000);
    b->stopped_at_ns = now_ns();
    bool event_stop = status >= 0 && WIFSTOPPED(status) && (status >> 16) == PTRACE_EVENT_STOP;
    if (!event_stop || ptrace(PTRACE_GETREGS, tid, NULL, &b->saved) != 0) {
        if (status >= 0 && WIFSTOPPED(status) && !event_stop) {
            /* a signal of the program's arrived first: let it have it */
            ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)WSTOPSIG(status));
            snprintf(why, size, "a signal arrived while stopping the thread");
        } else {
            fail(why, size, "cannot stop the thread");
            ptrace(PTRACE_DETACH, tid, NULL, NULL);
        }
        free(b);
        return NULL;
    }
    if ((long)b->saved.orig_rax < 0 || !syscall_ok((long)b->saved.orig_rax)) {
        ptrace(PTRACE_DETACH, tid, NULL, NULL);
        snprintf(why, size, "the thread was not waiting in its system call");
        free(b);
        return NULL;
    }
    char path[64];
    snprintf(path, sizeof(path), "/proc/%ld/mem", (long)pid);
    b->mem_fd = open(path, O_RDWR | O_CLOEXEC);
    if (b->mem_fd < 0) {
        fail(why, size, "cannot open its memory");
        ptrace(PTRACE_DETACH, tid, NULL, NULL);
        free(b);
        return NULL;
    }
    b->pushed = b->saved.rsp - RED_ZONE;
    return b;
}

uint64_t rp_borrowed_push(rp_borrowed *b, const void *data, size_t n)
{
    uint64_t at = (b->pushed - n) & ~(uint64_t)15;
    if (b->saved.rsp - RED_ZONE - at > PUSH_ROOM)
        return 0;
    if (pwrite(b->mem_fd, data, n, (off_t)at) != (ssize_t)n)
        return 0;
    b->pushed = at;
    return at;
}

bool rp_borrowed_call(rp_borrowed *b, uint64_t fn, uint64_t a0, uint64_t a1, uint64_t *ret,
                      int timeout_ms, char *why, size_t size)
{
    struct user_regs_struct regs = b->saved;
    uint64_t zero = 0;
    /* At a function's first instruction rsp + 8 is 16-byte aligned. */
    uint64_t sp = ((b->pushed - 256) & ~(uint64_t)15) - 8;
    if (pwrite(b->mem_fd, &zero, sizeof(zero), (off_t)sp) != sizeof(zero))
        return fail(why, size, "cannot write its stack");
    regs.rsp = sp;
    regs.rip = fn;
    regs.rdi = a0;
    regs.rsi = a1;
    regs.rax = 0;
    regs.orig_rax = (unsigned long long)-1;
    if (ptrace(PTRACE_SETREGS, b->tid, NULL, &regs) != 0 || ptrace(PTRACE_CONT, b->tid, NULL, NULL) != 0)
        return fail(why, size, "cannot start the call");
    for (;;) {
        int status = wait_stop(b->tid, timeout_ms);
        if (status < 0)
            return fail(why, size, errno == ETIMEDOUT ? "the call did not return" : "the call");
        if (!WIFSTOPPED(status))
            continue;
        int sig = WSTOPSIG(status);
        if (ptrace(PTRACE_GETREGS, b->tid, NULL, &regs) != 0)
            return fail(why, size, "cannot read the call's result");
        if (sig == SIGSEGV && regs.rip == 0) {
            *ret = regs.rax;
            return true;
        }
        if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT) {
            snprintf(why, size, "the call crashed (signal %d at %#llx)", sig, (unsigned long long)regs.rip);
            return false;
        }
        /* Anything else: the call goes on. A signal of the program's must
         * not run its handler on our frames, nor be lost: it is delivered
         * when the thread is given back. A group stop is not a signal. */
        if ((status >> 16) != PTRACE_EVENT_STOP)
            b->pending_signal = sig;
        if (ptrace(PTRACE_CONT, b->tid, NULL, NULL) != 0)
            return fail(why, size, "the call");
    }
}

uint64_t rp_borrowed_sp(const rp_borrowed *b)
{
    return b->saved.rsp;
}

int64_t rp_borrowed_stopped_ns(const rp_borrowed *b)
{
    return now_ns() - b->stopped_at_ns;
}

bool rp_give_back(rp_borrowed *b, char *why, size_t size)
{
    bool ok = ptrace(PTRACE_SETREGS, b->tid, NULL, &b->saved) == 0;
    if (!ok)
        fail(why, size, "cannot restore the thread");
    if (ptrace(PTRACE_DETACH, b->tid, NULL, (void *)(long)b->pending_signal) != 0 && ok)
        ok = fail(why, size, "cannot detach");
    if (b->mem_fd >= 0)
        close(b->mem_fd);
    free(b);
    return ok;
}
