/*
 * attach/main.c — rperf-attach: hands a command to the rperf agent inside
 * a running Ruby process, loading the agent into it first if it has none.
 *
 *   rperf-attach [-v] [--wait S] PID AGENT COMMAND
 *
 * COMMAND is agent/remote.h's (the `rperf attach`, `detach` and `ctl`
 * commands of scripts/rperf write it). With --wait, the command gets
 * expires= (S seconds from now) and rperf-attach waits that long for the
 * agent's answer in the command's reply= file: "ok ..." is printed on
 * stdout (status 0), "error ..." on stderr (status 1). What happens, in
 * order, each step refusing with one line and touching nothing when it
 * fails:
 *
 *   1. the process is looked at from /proc: it exists, it is ours (or we
 *      are root), nothing traces it, it runs Ruby 3.4 (its
 *      ruby_api_version, read from its memory — only a user allowed to
 *      trace it may read that: the kernel's rule, as for gdb -p);
 *   2. Ruby's timer thread (the thread waiting in epoll_wait) is borrowed
 *      (remote_call.h): it holds no lock there, of Ruby's or libc's, so it
 *      may run dlopen; no other thread of the program stops;
 *   3. on it: dlopen(AGENT) (or the agent already loaded), dlsym
 *      "rperf_remote", rperf_remote(COMMAND), which only hands the command
 *      to a postponed job and returns;
 *   4. the thread is given back as it was.
 *
 * Exit status: 0 handed over, 1 refused or failed, 2 usage.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../agent/remote.h"
#include "elf_symbols.h"
#include "proc_target.h"
#include "remote_call.h"

#define AGENT_NAME "librperf-agent.so"
#define WHY_SIZE 1024
/* Below this much stack left on the borrowed thread, dlopen is not run. */
#define STACK_NEEDED (128 * 1024)
#define CALL_TIMEOUT_MS 5000

static const char *program = "rperf";
static bool verbose;

static int refuse(const rp_target *t, const char *fmt, const char *detail)
{
    fprintf(stderr, "%s: process %ld (%s): ", program, (long)t->pid, t->name);
    fprintf(stderr, fmt, detail);
    fputc('\n', stderr);
    return 1;
}

static const char *ptrace_rule(void)
{
    static char text[128];
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
    int scope = -1;
    if (f) {
        if (fscanf(f, "%d", &scope) != 1)
            scope = -1;
        fclose(f);
    }
    if (scope < 0)
        return "only a user who may trace it can attach";
    snprintf(text, sizeof(text), "only a user who may trace it can attach; kernel.yama.ptrace_scope=%d", scope);
    return text;
}

/* Where the process has Ruby: libruby.so, or its executable (a static
 * ruby). The file and the address its first mapping starts at. */
static bool find_ruby_object(pid_t pid, rp_mapped *ruby)
{
    if (rp_target_find_mapped(pid, "libruby.so", true, ruby))
        return true;
    char link[64], exe[PATH_MAX];
    snprintf(link, sizeof(link), "/proc/%ld/exe", (long)pid);
    ssize_t n = readlink(link, exe, sizeof(exe) - 1);
    struct stat st;
    if (n <= 0)
        return false;
    exe[n] = '\0';
    return stat(link, &st) == 0 && rp_target_find_same_file(pid, exe, st.st_ino, ruby);
}

/* Step 1. */
static int check_target(const rp_target *t)
{
    if (getuid() != 0 && t->uid != getuid())
        return refuse(t, "belongs to another user; %s", ptrace_rule());
    if (t->tracer) {
        rp_target tracer = {.name = "?"};
        rp_target_read(t->tracer, &tracer);
        char detail[128];
        snprintf(detail, sizeof(detail), "%ld (%s)", (long)t->tracer, tracer.name);
        return refuse(t, "is being traced already, by process %s; nothing done", detail);
    }
    rp_mapped ruby;
    uint64_t value, link_base;
    if (!find_ruby_object(t->pid, &ruby) ||
        !rp_elf_dynamic_symbol(ruby.path, "ruby_api_version", &value, &link_base))
        return refuse(t, "is not a Ruby process%s", "");
    int version[3];
    if (!rp_target_read_memory(t->pid, ruby.start - link_base + value, version, sizeof(version))) {
        if (errno == EACCES || errno == EPERM)
            return refuse(t, "cannot be read: %s", ptrace_rule());
        return refuse(t, "cannot be read: %s", strerror(errno));
    }
    if (version[0] != 3 || version[1] != 4) {
        char detail[64];
        snprintf(detail, sizeof(detail), "%d.%d", version[0], version[1]);
        return refuse(t, "runs Ruby %s; this agent is built for Ruby 3.4", detail);
    }
    return 0;
}

/* The target's dlopen, dlsym and dlerror: where its copy of our libc
 * (the same file) has them. False when it has no such copy. */
static bool find_target_dl(pid_t pid, uint64_t *dlopen_at, uint64_t *dlsym_at, uint64_t *dlerror_at)
{
    Dl_info info;
    struct stat st;
    rp_mapped libc;
    if (!dladdr((void *)dlopen, &info) || !info.dli_fname || stat(info.dli_fname, &st) != 0 ||
        !rp_target_find_same_file(pid, info.dli_fname, st.st_ino, &libc))
        return false;
    uint64_t bias = libc.start - (uint64_t)(uintptr_t)info.dli_fbase;
    *dlopen_at = bias + (uint64_t)(uintptr_t)dlopen;
    *dlsym_at = bias + (uint64_t)(uintptr_t)dlsym;
    *dlerror_at = bias + (uint64_t)(uintptr_t)dlerror;
    return true;
}

static bool is_epoll_wait(long nr)
{
    return nr == SYS_epoll_wait || nr == SYS_epoll_pwait || nr == SYS_epoll_pwait2;
}

/* Step 2: the timer thread, stopped inside epoll_wait (it wakes up now
 * and then, and Ruby makes a new one after each fork: a few tries may be
 * needed, for a second at most). */
static rp_borrowed *borrow_timer_thread(const rp_target *t, int *status)
{
    char why[WHY_SIZE] = "";
    for (int attempt = 0; attempt < 500; attempt++) {
        pid_t tids[8];
        int n = rp_target_epoll_threads(t->pid, tids, 8);
        for (int i = 0; i < n; i++) {
            if (!rp_target_thread_takes_segv(t->pid, tids[i])) {
                snprintf(why, sizeof(why), "its timer thread blocks or ignores SIGSEGV");
                continue;
            }
            rp_borrowed *b = rp_borrow(t->pid, tids[i], is_epoll_wait, why, sizeof(why));
            if (b)
                return b;
            if (errno == EPERM) {
                *status = refuse(t, "cannot be traced: %s", ptrace_rule());
                return NULL;
            }
        }
        if (!rp_target_read((pid_t)t->pid, &(rp_target){0})) {
            *status = refuse(t, "exited%s", "");
            return NULL;
        }
        struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
    }
    *status = refuse(t, why[0] ? "has no thread that could be borrowed (%s)"
                               : "has no thread waiting in epoll_wait (Ruby 3.4's timer thread)%s",
                     why);
    return NULL;
}

/* A C string the target wrote (dlerror's), or "?". */
static const char *read_target_string(pid_t pid, uint64_t addr, char *buf, size_t size)
{
    if (!addr || !rp_target_read_memory(pid, addr, buf, size - 1)) {
        /* a short string near the end of a mapping: read less */
        memset(buf, 0, size);
        if (!addr || !rp_target_read_memory(pid, addr, buf, 64))
            return "?";
    }
    buf[size - 1] = '\0';
    return buf;
}

/* Step 3, on the borrowed thread: the agent's rperf_remote(command). */
static int hand_over(const rp_target *t, rp_borrowed *b, const char *agent, bool loaded, const char *command)
{
    char why[WHY_SIZE];
    uint64_t dlopen_at, dlsym_at, dlerror_at;
    if (!find_target_dl(t->pid, &dlopen_at, &dlsym_at, &dlerror_at))
        return refuse(t, "does not use this system's C library (%s)", "no dlopen found in it");
    uint64_t low;
    if (!rp_target_mapping_of(t->pid, rp_borrowed_sp(b), &low) || rp_borrowed_sp(b) - low < STACK_NEEDED)
        return refuse(t, "its timer thread has too little stack left to load the agent%s", "");
    uint64_t path_at = rp_borrowed_push(b, agent, strlen(agent) + 1);
    uint64_t name_at = rp_borrowed_push(b, "rperf_remote", sizeof("rperf_remote"));
    uint64_t command_at = rp_borrowed_push(b, command, strlen(command) + 1);
    if (!path_at || !name_at || !command_at)
        return refuse(t, "its timer thread's stack cannot be written%s", "");
    uint64_t handle = 0, entry = 0, rc = 0;
    int flags = RTLD_NOW | (loaded ? RTLD_NOLOAD : 0);
    if (!rp_borrowed_call(b, dlopen_at, path_at, (uint64_t)flags, &handle, CALL_TIMEOUT_MS, why, sizeof(why)))
        return refuse(t, "loading the agent failed: %s", why);
    if (!handle) {
        uint64_t message = 0;
        char text[512];
        rp_borrowed_call(b, dlerror_at, 0, 0, &message, CALL_TIMEOUT_MS, why, sizeof(why));
        return refuse(t, "could not load the agent: %s", read_target_string(t->pid, message, text, sizeof(text)));
    }
    if (!rp_borrowed_call(b, dlsym_at, handle, name_at, &entry, CALL_TIMEOUT_MS, why, sizeof(why)) || !entry)
        return refuse(t, "the agent loaded has no rperf_remote (%s)", agent);
    if (!rp_borrowed_call(b, entry, command_at, 0, &rc, CALL_TIMEOUT_MS, why, sizeof(why)))
        return refuse(t, "handing the command over failed: %s", why);
    switch ((int)rc) {
    case RP_REMOTE_ACCEPTED:
        return 0;
    case RP_REMOTE_BUSY:
        return refuse(t, "the agent is still busy with an earlier command; try again%s", "");
    case RP_REMOTE_NO_RUBY:
        return refuse(t, "has no Ruby 3.4 VM running (starting up or exiting?)%s", "");
    case RP_REMOTE_NO_JOB:
        return refuse(t, "Ruby's postponed-job table is full%s", "");
    default:
        return refuse(t, "the command was refused (too long)%s", "");
    }
}

static int usage(void)
{
    fprintf(stderr, "usage: rperf-attach [-v] [--wait SECONDS] PID AGENT COMMAND\n");
    return 2;
}

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The command's reply= file, into reply[]; false when it has none. */
static bool reply_file(const char *command, char *reply, size_t size)
{
    const char *at = strstr(command, "\nreply=");
    if (!at)
        return false;
    at += strlen("\nreply=");
    size_t n = strcspn(at, "\n");
    if (n == 0 || n >= size)
        return false;
    memcpy(reply, at, n);
    reply[n] = '\0';
    return true;
}

/* Waits for the agent's answer and says it: until `deadline`, which the
 * agent drops the command after, and a grace for a job that began just
 * before it to write its answer. */
static int await_reply(const rp_target *t, const char *reply, int64_t deadline, double seconds)
{
    while (monotonic_ns() < deadline + 2000000000LL) {
        FILE *f = fopen(reply, "re");
        if (f) {
            char line[PATH_MAX + 512] = "";
            bool got = fgets(line, sizeof(line), f) != NULL;
            fclose(f);
            unlink(reply);
            line[strcspn(line, "\n")] = '\0';
            if (got && strncmp(line, "ok ", 3) == 0) {
                printf("%s\n", line + 3);
                return 0;
            }
            return refuse(t, "%s", got && strncmp(line, "error ", 6) == 0 ? line + 6 : "unreadable answer");
        }
        if (!rp_target_read(t->pid, &(rp_target){0}))
            return refuse(t, "exited before it answered%s", "");
        struct timespec pause = {0, 5000000};
        nanosleep(&pause, NULL);
    }
    char detail[64];
    snprintf(detail, sizeof(detail), "%.0f s", seconds);
    return refuse(t, "ran no Ruby code for %s (a command waits for a safepoint); it was dropped, nothing changed",
                  detail);
}

int main(int argc, char **argv)
{
    int arg = 1;
    double wait_s = 0;
    for (; arg < argc && argv[arg][0] == '-'; arg++) {
        if (strcmp(argv[arg], "-v") == 0)
            verbose = true;
        else if (strcmp(argv[arg], "--wait") == 0 && arg + 1 < argc && (wait_s = atof(argv[arg + 1])) > 0)
            arg++;
        else
            return usage();
    }
    if (argc - arg != 3)
        return usage();
    char *end;
    long pid = strtol(argv[arg], &end, 10);
    if (*end || pid <= 0) {
        fprintf(stderr, "%s: '%s' is not a process id\n", program, argv[arg]);
        return 1;
    }
    rp_target t;
    if (!rp_target_read((pid_t)pid, &t)) {
        fprintf(stderr, "%s: no process %ld\n", program, pid);
        return 1;
    }
    int status = check_target(&t);
    if (status)
        return status;
    rp_mapped present;
    bool loaded = rp_target_find_mapped(t.pid, AGENT_NAME, false, &present);
    char agent[PATH_MAX];
    if (loaded)
        snprintf(agent, sizeof(agent), "%s", present.path);
    else if (!realpath(argv[arg + 1], agent)) {
        fprintf(stderr, "%s: agent %s: %s\n", program, argv[arg + 1], strerror(errno));
        return 1;
    }
    char command[RP_REMOTE_MAX], reply[PATH_MAX];
    int64_t deadline = monotonic_ns() + (int64_t)(wait_s * 1e9);
    bool awaits = wait_s > 0 && reply_file(argv[arg + 2], reply, sizeof(reply));
    int n = awaits ? snprintf(command, sizeof(command), "%s\nexpires=%lld", argv[arg + 2], (long long)deadline)
                   : snprintf(command, sizeof(command), "%s", argv[arg + 2]);
    if (n < 0 || (size_t)n >= sizeof(command)) {
        fprintf(stderr, "%s: the command is too long\n", program);
        return 1;
    }
    if (awaits)
        unlink(reply);
    rp_borrowed *b = borrow_timer_thread(&t, &status);
    if (!b)
        return status;
    status = hand_over(&t, b, agent, loaded, command);
    int64_t stopped = rp_borrowed_stopped_ns(b);
    char why[WHY_SIZE];
    if (!rp_give_back(b, why, sizeof(why)))
        status = refuse(&t, "giving its thread back failed: %s", why);
    if (verbose)
        fprintf(stderr, "%s: process %ld: its timer thread was stopped for %.2f ms%s\n", program, pid,
                (double)stopped / 1e6, loaded ? "" : " (the agent loaded)");
    if (status == 0 && awaits)
        status = await_reply(&t, reply, deadline, wait_s);
    return status;
}
