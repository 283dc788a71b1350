/*
 * attach/remote_call.h — calling a function inside another process.
 *
 * Owns: borrowing one thread of the target with ptrace — seize it, stop
 * it where it waits in a system call, make it call a function with our
 * arguments on its own stack, and give it back exactly as it was (its
 * registers restored, so the interrupted system call restarts as after
 * any signal). Only that thread stops; the others run on. x86-64 only.
 */
#ifndef RPERF_ATTACH_REMOTE_CALL_H
#define RPERF_ATTACH_REMOTE_CALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct rp_borrowed rp_borrowed;

/* Seizes thread `tid` of `pid` and stops it. It must be stopped inside
 * one of the system calls accepted by `syscall_ok` (else it is let go and
 * NULL returned with why[] — the caller may try again). NULL with why[] on
 * any failure; errno tells EPERM (not allowed) and ESRCH (gone). */
rp_borrowed *rp_borrow(pid_t pid, pid_t tid, bool (*syscall_ok)(long nr), char *why, size_t size);

/* Copies `n` bytes onto the borrowed thread's stack, below what it uses;
 * their address in the target, or 0 when there is no room. Valid until
 * the thread is given back. */
uint64_t rp_borrowed_push(rp_borrowed *b, const void *data, size_t n);

/* The borrowed thread calls fn(a0, a1) and comes back: its return value
 * into *ret. False with why[] (the call crashed, did not return within
 * `timeout_ms`, or the process went away). */
bool rp_borrowed_call(rp_borrowed *b, uint64_t fn, uint64_t a0, uint64_t a1, uint64_t *ret,
                      int timeout_ms, char *why, size_t size);

/* The borrowed thread's stack pointer when it was stopped. */
uint64_t rp_borrowed_sp(const rp_borrowed *b);

/* How long the thread has been stopped so far, in ns. */
int64_t rp_borrowed_stopped_ns(const rp_borrowed *b);

/* Gives the thread back as it was and detaches. False with why[] when it
 * could not be restored (the process went away). Frees `b`. */
bool rp_give_back(rp_borrowed *b, char *why, size_t size);

#endif
