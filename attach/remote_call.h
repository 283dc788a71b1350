/*
 * attach/remote_call.h — calling a function inside another process.
 *
 * Owns: borrowing one thread of the target with ptrace — seize it, stop
 * it where it waits in a system call, make it call a function with our
 * arguments on its own stack — in such a way that the thread comes back
 * to where it was BY ITSELF: each call returns into a signal return
 * (rt_sigreturn) through a frame holding the thread's registers, floating
 * point state and signal mask as they were. No step needs the tracer to
 * survive: whenever rperf-attach dies (SIGKILL, a lost terminal), the
 * kernel lets the thread go and it finishes the call and returns as if
 * from a signal handler. Only that thread stops; the others run on.
 * x86-64 only.
 *
 * A call's result comes back through memory only (the function writes
 * it where an argument points), never through a register the tracer
 * would have to catch.
 */
#ifndef RPERF_ATTACH_REMOTE_CALL_H
#define RPERF_ATTACH_REMOTE_CALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct rp_borrowed rp_borrowed;

/* What a call came to. */
typedef enum rp_call_outcome {
    RP_CALL_RETURNED, /* done; the thread is back where it was, still borrowed */
    RP_CALL_NOT_MADE, /* refused before the thread was touched (why[]) */
    RP_CALL_CRASHED,  /* the function faulted: the thread was put back as it
                         was, the fault never delivered; nothing more may be
                         tried in that process (its state is unknown) */
    RP_CALL_LEFT,     /* no return within the timeout (the target stopped,
                         or the call hangs): the thread was let go and
                         returns by itself when the call ends */
    RP_CALL_GONE,     /* the process went away */
} rp_call_outcome;

/* Seizes thread `tid` of `pid` and stops it. It must be stopped inside
 * one of the system calls accepted by `syscall_ok` (else it is let go and
 * NULL returned with why[] — the caller may try again). `restorer` is the
 * address, in the target, of the bytes of rp_restorer_code (libc's
 * __restore_rt): what each call returns into. NULL with why[] on any
 * failure; errno tells EPERM (not allowed), ESRCH (gone) and EAGAIN (the
 * thread, or its process, is stopped by a signal: SIGSTOP, SIGTSTP). */
rp_borrowed *rp_borrow(pid_t pid, pid_t tid, uint64_t restorer, bool (*syscall_ok)(long nr), char *why,
                       size_t size);

/* The instructions `mov $15, %rax; syscall` (rt_sigreturn), as every
 * x86-64 libc has them for its signal handlers' return. */
extern const unsigned char rp_restorer_code[9];

/* Copies `n` bytes onto the borrowed thread's stack, below what it uses;
 * their address in the target, or 0 when there is no room. Valid until
 * the thread is given back. */
uint64_t rp_borrowed_push(rp_borrowed *b, const void *data, size_t n);

/* Reads `n` bytes of the target's memory (a result a call wrote). */
bool rp_borrowed_read(rp_borrowed *b, uint64_t addr, void *out, size_t n);

/* The borrowed thread calls fn(a0, a1, a2) and returns by itself to where
 * it was stopped. Signals that arrive at it meanwhile are delivered at
 * once (the program's handlers run on top of the call, as they may on any
 * code), none is held back or lost. After any outcome but RETURNED the
 * thread is no longer borrowed: only rp_give_back(b) may follow. */
rp_call_outcome rp_borrowed_call(rp_borrowed *b, uint64_t fn, uint64_t a0, uint64_t a1, uint64_t a2,
                                 int timeout_ms, char *why, size_t size);

/* The borrowed thread's stack pointer when it was stopped. */
uint64_t rp_borrowed_sp(const rp_borrowed *b);

/* How long the thread has been stopped so far, in ns. */
int64_t rp_borrowed_stopped_ns(const rp_borrowed *b);

/* Lets the thread go (it is back where it was) and frees `b`. False with
 * why[] when the process went away meanwhile. */
bool rp_give_back(rp_borrowed *b, char *why, size_t size);

/* Fault injection for the tests: when set, called at each step of a
 * borrow — "stopped", "call-ready" (the thread's registers set for a
 * call, not yet resumed), "in-call" (at each system call the function
 * makes; n counts them), "returning" (at its signal return), "returned",
 * "released" — so a test can kill or signal rperf-attach, or stop the
 * target, at exactly that point. */
extern void (*rp_borrow_step_hook)(const char *step, int n);

#endif
