/*
 * attach/proc_target.h — another process, as /proc shows it.
 *
 * Owns: what rperf-attach learns about its target before touching it —
 * whether it exists, whose it is, whether something traces it already,
 * the files it has mapped and where, its threads' system calls — and
 * reading its memory (allowed only to a user who may trace it).
 */
#ifndef RPERF_ATTACH_PROC_TARGET_H
#define RPERF_ATTACH_PROC_TARGET_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct rp_target {
    pid_t pid;
    char name[64]; /* its command name (comm) */
    uid_t uid;     /* real user id */
    pid_t tracer;  /* who traces one of its threads already, or 0 */
    char state;    /* R, S, T (stopped), t (traced) ... */
    int seccomp;   /* 0 none, 1 strict, 2 a filter */
    unsigned long long start_time; /* clock ticks after boot */
} rp_target;

/* Reads /proc/PID/status. False when there is no such process. */
bool rp_target_read(pid_t pid, rp_target *t);

/* Whether the target is in our namespace of `kind` ("mnt", "pid"). */
bool rp_target_same_namespace(pid_t pid, const char *kind);

/* A file mapped into the target: where its first mapping starts. */
typedef struct rp_mapped {
    uint64_t start;
    unsigned long inode;
    char path[PATH_MAX];
} rp_mapped;

/* The first file mapped whose path ends with "/" + `name` (or, with
 * `prefix`, whose last component starts with `name`) into *out. */
bool rp_target_find_mapped(pid_t pid, const char *name, bool prefix, rp_mapped *out);

/* The first file mapped with this inode and file name (the same file as
 * one this process maps). */
bool rp_target_find_same_file(pid_t pid, const char *path, unsigned long inode, rp_mapped *out);

/* The target's C library: its mapping into *libc, and into file[] a path
 * to it that opens the file the target mapped (the same inode), through
 * the target's own root. False when it has none, or the
 * file cannot be reached so. */
bool rp_target_find_libc(pid_t pid, rp_mapped *libc, char *file, size_t size);

/* The target's executable mappings, up to `max`: their count. */
typedef struct rp_code_range {
    uint64_t start, end;
    unsigned long inode; /* of the file mapped, 0 for anonymous code */
} rp_code_range;
int rp_target_code_ranges(pid_t pid, rp_code_range *out, int max);

/* The mapping holding `addr`: its lowest address into *low. */
bool rp_target_mapping_of(pid_t pid, uint64_t addr, uint64_t *low);

/* Reads `n` bytes of the target's memory at `addr`. False with errno. */
bool rp_target_read_memory(pid_t pid, uint64_t addr, void *buf, size_t n);

/* Whether SIGSEGV reaches thread `tid` as it is (neither blocked in
 * it nor ignored by the process): a fault there then leaves the
 * program's handler alone (remote_call.h). */
bool rp_target_thread_takes_segv(pid_t pid, pid_t tid);

/* The system call thread `tid` is in now, and its stack pointer (read
 * without stopping it). False when it is in none, or is gone. */
bool rp_target_thread_syscall(pid_t pid, pid_t tid, long *nr, uint64_t *sp);

/* The target's threads other than its main one that are waiting in
 * epoll_wait now (Ruby's timer thread), in thread-id order; their count. */
int rp_target_epoll_threads(pid_t pid, pid_t *tids, int max);

#endif
