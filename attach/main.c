/*
 * attach/main.c — rperf-attach: hands a command to the rperf agent inside
 * a running Ruby process, loading the agent into it first if it has none.
 *
 *   rperf-attach [-v] [--wait S] PID AGENT COMMAND
 *
 * COMMAND is agent/control/remote.h's (the `rperf attach`, `detach` and `ctl`
 * commands of scripts/rperf write it). With --wait, the command gets
 * expires= (S seconds from now) and rperf-attach waits that long for the
 * agent's answer in the command's reply= file: "ok ..." is printed on
 * stdout (status 0), "error ..." on stderr (status 1). What happens, in
 * order, each step refusing with one line and touching nothing when it
 * fails:
 *
 *   1. the process is looked at from /proc: it exists, it is ours (or we
 *      are root), nothing traces it, it is not stopped, no seccomp filter
 *      and no other mount or PID namespace stand between us, no call
 *      into it crashed before, it runs Ruby 3.4 (its ruby_api_version,
 *      read from its memory — only a user allowed to trace it may read
 *      that: the kernel's rule, as for gdb -p);
 *   2. its C library's dlopen and signal-return code are found in the
 *      file it maps (through its own root), from that file's ELF;
 *   3. Ruby's timer thread is borrowed (remote_call.h): the thread
 *      waiting in epoll_wait called from Ruby's own code — it holds no
 *      lock there, of Ruby's or libc's, so it may run dlopen; no other
 *      thread of the program stops;
 *   4. on it: dlopen(AGENT) unless the agent is loaded already, then the
 *      agent's rperf_remote(COMMAND, &answer), which only hands the
 *      command to a postponed job and returns;
 *   5. the thread is given back as it was.
 *
 * Every call returns to where the thread was by itself, so no instant
 * of ours dying harms the target (remote_call.h); the signals that would
 * end us early (Ctrl-C, a lost terminal, kill) are held from the borrow
 * to the give-back. A call that crashes is said, the thread put back,
 * and the process marked: no later rperf-attach touches it.
 *
 * Exit status: 0 handed over, 1 refused or failed, 2 usage.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../agent/control/remote.h"
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

/* Where the process has Ruby: libruby.so (a distribution's may be named
 * libruby-3.1.so.3.1), or its executable (a static ruby). The file and
 * the address its first mapping starts at. */
static bool find_ruby_object(pid_t pid, rp_mapped *ruby)
{
    if (rp_target_find_mapped(pid, "libruby.so", true, ruby) || rp_target_find_mapped(pid, "libruby-", true, ruby))
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

/* --- processes a call crashed in ------------------------------------------ */

/* Where the mark of a process a call crashed in is kept: a directory of
 * ours, named for the process and its start time (no later process has
 * both). False when there is no safe such directory. */
static bool crash_mark(const rp_target *t, char *path, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/rperf-attach-%ld", tmp && *tmp ? tmp : "/tmp", (long)geteuid());
    struct stat st;
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return false;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
        return false;
    int n = snprintf(path, size, "%s/crashed-%ld-%llu", dir, (long)t->pid, t->start_time);
    return n > 0 && (size_t)n < size;
}

static bool crashed_before(const rp_target *t)
{
    char path[PATH_MAX];
    return crash_mark(t, path, sizeof(path)) && access(path, F_OK) == 0;
}

static void mark_crashed(const rp_target *t)
{
    char path[PATH_MAX];
    int fd = crash_mark(t, path, sizeof(path)) ? open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600) : -1;
    if (fd >= 0)
        close(fd);
}

#define STR2(x) #x
#define STR(x) STR2(x)

/* "runs Ruby 3.1.2; this agent is built for Ruby 3.4": the full version
 * from the process's ruby_version string when it can be read. */
static void running_version(pid_t pid, const rp_mapped *ruby, const int version[3], char *out, size_t size)
{
    char text[16] = "";
    uint64_t value, base;
    if (!rp_elf_dynamic_symbol(ruby->path, "ruby_version", &value, &base) ||
        !rp_target_read_memory(pid, ruby->start - base + value, text, sizeof(text) - 1) ||
        strspn(text, "0123456789.") != strlen(text) || !text[0])
        snprintf(text, sizeof(text), "%d.%d", version[0], version[1]);
    snprintf(out, size, "runs Ruby %s; this agent is built for Ruby %s (use an rperf built against that Ruby)",
             text, STR(RP_RUBY_MAJOR) "." STR(RP_RUBY_MINOR));
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
    if (t->state == 'T' || t->state == 't')
        return refuse(t, "is stopped (SIGSTOP or a debugger); send it SIGCONT, then attach%s", "");
    if (t->seccomp)
        return refuse(t, "runs under a seccomp filter, which may kill it for a call the agent makes; nothing "
                         "done%s", "");
    if (!rp_target_same_namespace(t->pid, "mnt") || !rp_target_same_namespace(t->pid, "pid"))
        return refuse(t, "runs in another mount or PID namespace (a container?); run rperf inside it%s", "");
    if (crashed_before(t))
        return refuse(t, "a call rperf made into it crashed before; rperf does not touch it again%s", "");
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
    if (version[0] != RP_RUBY_MAJOR || version[1] != RP_RUBY_MINOR) {
        char detail[128];
        running_version(t->pid, &ruby, version, detail, sizeof(detail));
        return refuse(t, "%s", detail);
    }
    return 0;
}

/* --- step 2: the target's C library ---------------------------------------- */

typedef struct target_libc {
    uint64_t dlopen_at;   /* its dlopen */
    uint64_t restorer_at; /* its __restore_rt: what each call returns into */
} target_libc;

/* Where symbol or code `what` of the target's libc is, from the file it
 * maps; checked against its memory when `expect` is given. */
static bool locate_in_libc(pid_t pid, const rp_mapped *libc, uint64_t value, uint64_t base, const void *expect,
                           size_t n, uint64_t *at)
{
    *at = libc->start - base + value;
    unsigned char seen[16];
    return !expect || (n <= sizeof(seen) && rp_target_read_memory(pid, *at, seen, n) && memcmp(seen, expect, n) == 0);
}

static int find_target_libc(const rp_target *t, target_libc *out)
{
    rp_mapped libc;
    char file[PATH_MAX + 32];
    uint64_t value, base;
    if (!rp_target_find_libc(t->pid, &libc, file, sizeof(file)))
        return refuse(t, "its C library cannot be found, or not read through /proc/PID/root%s", "");
    if (!rp_elf_dynamic_symbol(file, "dlopen", &value, &base) ||
        !locate_in_libc(t->pid, &libc, value, base, NULL, 0, &out->dlopen_at))
        return refuse(t, "its C library (%s) has no dlopen (glibc 2.34 or later is needed)", libc.path);
    if (!rp_elf_find_code(file, rp_restorer_code, sizeof(rp_restorer_code), &value, &base) ||
        !locate_in_libc(t->pid, &libc, value, base, rp_restorer_code, sizeof(rp_restorer_code), &out->restorer_at))
        return refuse(t, "its C library (%s) has no signal-return code rperf knows", libc.path);
    return 0;
}

/* --- step 3: the timer thread ---------------------------------------------- */

static bool is_epoll_wait(long nr)
{
    return nr == SYS_epoll_wait || nr == SYS_epoll_pwait || nr == SYS_epoll_pwait2;
}

/* Whether thread `tid`'s system call was made from code of `object`:
 * the first word on its stack that points into code is the return
 * address out of libc's epoll_wait wrapper. Read while it waits, without
 * stopping it: a thread of the program's own is never touched. */
static bool called_from(const rp_target *t, pid_t tid, const rp_mapped *object)
{
    uint64_t words[32], sp;
    long nr;
    rp_code_range code[512];
    int ranges = rp_target_code_ranges(t->pid, code, 512);
    if (!rp_target_thread_syscall(t->pid, tid, &nr, &sp) || !rp_target_read_memory(t->pid, sp, words, sizeof(words)))
        return false;
    for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++)
        for (int r = 0; r < ranges; r++)
            if (words[w] >= code[r].start && words[w] < code[r].end)
                return code[r].inode == object->inode;
    return false;
}

/* Ruby's timer thread, stopped inside epoll_wait (it wakes up now and
 * then, and Ruby makes a new one after each fork: a few tries may be
 * needed, for a second at most). A gem's event loop (nio4r, io-event,
 * grpc, a Fiddle call) waits in epoll_wait too: only a thread whose
 * epoll_wait was called from Ruby's own code is taken. */
static rp_borrowed *borrow_timer_thread(const rp_target *t, const target_libc *libc, int *status)
{
    char why[WHY_SIZE] = "";
    rp_mapped ruby;
    if (!find_ruby_object(t->pid, &ruby)) {
        *status = refuse(t, "is not a Ruby process%s", "");
        return NULL;
    }
    for (int attempt = 0; attempt < 500; attempt++) {
        pid_t tids[16];
        int n = rp_target_epoll_threads(t->pid, tids, 16);
        for (int i = 0; i < n; i++) {
            if (!called_from(t, tids[i], &ruby)) {
                snprintf(why, sizeof(why), "no thread in epoll_wait is Ruby's timer thread");
                continue;
            }
            if (!rp_target_thread_takes_segv(t->pid, tids[i])) {
                snprintf(why, sizeof(why), "its timer thread blocks or ignores SIGSEGV");
                continue;
            }
            rp_borrowed *b = rp_borrow(t->pid, tids[i], libc->restorer_at, is_epoll_wait, why, sizeof(why));
            if (!b && errno == EPERM) {
                *status = refuse(t, "cannot be traced: %s", ptrace_rule());
                return NULL;
            }
            if (!b && errno == EAGAIN) {
                *status = refuse(t, "is stopped (SIGSTOP or a debugger); send it SIGCONT, then attach%s", "");
                return NULL;
            }
            if (b)
                return b;
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

/* --- step 4: the calls ------------------------------------------------------ */

/* What a call that did not return means for the attach, in one line. */
static int call_failed(const rp_target *t, rp_call_outcome outcome, const char *doing, const char *why)
{
    char detail[WHY_SIZE + 64];
    snprintf(detail, sizeof(detail), "%s: %s", doing, why);
    if (outcome == RP_CALL_CRASHED) {
        mark_crashed(t);
        return refuse(t, "%s; the process goes on, and rperf will not touch it again", detail);
    }
    return refuse(t, "%s", detail);
}

/* Why dlopen failed in the process, as far as a dlopen of the same file
 * here tells (its message stays inside the process). */
static const char *dlopen_diagnosis(const char *agent)
{
    static char text[512];
    void *h = dlopen(agent, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(text, sizeof(text), "%s", dlerror());
        return text;
    }
    dlclose(h);
    return "it loads here; can the process's user read it and every folder above it?";
}

/* Where the agent's rperf_remote is in the process, once it is loaded. */
static bool find_remote_entry(const rp_target *t, uint64_t *entry)
{
    rp_mapped present;
    char file[PATH_MAX + 32];
    uint64_t value, base;
    struct stat st;
    if (!rp_target_find_mapped(t->pid, AGENT_NAME, false, &present))
        return false;
    snprintf(file, sizeof(file), "/proc/%ld/root%s", (long)t->pid, present.path);
    if (stat(file, &st) != 0 || st.st_ino != present.inode ||
        !rp_elf_dynamic_symbol(file, "rperf_remote", &value, &base))
        return false;
    *entry = present.start - base + value;
    return true;
}

static int hand_over(const rp_target *t, rp_borrowed *b, const target_libc *libc, const char *agent,
                     const char *command)
{
    char why[WHY_SIZE];
    uint64_t low;
    if (!rp_target_mapping_of(t->pid, rp_borrowed_sp(b), &low) || rp_borrowed_sp(b) - low < STACK_NEEDED)
        return refuse(t, "its timer thread has too little stack left to load the agent%s", "");
    int unanswered = -1;
    uint64_t path_at = rp_borrowed_push(b, agent, strlen(agent) + 1);
    uint64_t command_at = rp_borrowed_push(b, command, strlen(command) + 1);
    uint64_t answer_at = rp_borrowed_push(b, &unanswered, sizeof(unanswered));
    if (!path_at || !command_at || !answer_at)
        return refuse(t, "its timer thread's stack cannot be written%s", "");
    uint64_t entry;
    if (!find_remote_entry(t, &entry)) {
        rp_call_outcome o = rp_borrowed_call(b, libc->dlopen_at, path_at, RTLD_NOW, 0, CALL_TIMEOUT_MS, why,
                                             sizeof(why));
        if (o != RP_CALL_RETURNED)
            return call_failed(t, o, "loading the agent", why);
        if (!find_remote_entry(t, &entry))
            return refuse(t, "could not load the agent: %s", dlopen_diagnosis(agent));
    }
    rp_call_outcome o = rp_borrowed_call(b, entry, command_at, answer_at, 0, CALL_TIMEOUT_MS, why, sizeof(why));
    if (o != RP_CALL_RETURNED)
        return call_failed(t, o, "handing the command over", why);
    int answer = -1;
    if (!rp_borrowed_read(b, answer_at, &answer, sizeof(answer)))
        return refuse(t, "its answer could not be read%s", "");
    switch (answer) {
    case RP_REMOTE_ACCEPTED:
        return 0;
    case RP_REMOTE_BUSY:
        return refuse(t, "the agent is still busy with an earlier command; try again%s", "");
    case RP_REMOTE_NO_RUBY:
        return refuse(t, "has no Ruby 3.4 VM running (starting up or exiting?)%s", "");
    case RP_REMOTE_NO_JOB:
        return refuse(t, "Ruby's postponed-job table is full%s", "");
    case RP_REMOTE_TOO_LONG:
        return refuse(t, "the command was refused (too long)%s", "");
    default:
        return refuse(t, "the agent loaded did not answer (is it this rperf's?)%s", "");
    }
}

/* --- fault injection (tests) ----------------------------------------------- */

/* RPERF_ATTACH_FAULT=STEP[:N]:ACTION — at that step of the borrow
 * (remote_call.h's names; N: the Nth time), ACTION: kill, int, term or
 * hup (that signal to ourselves), or stop (SIGSTOP to the target). */
static char fault_step[32], fault_action[8];
static int fault_n = 1, fault_seen;
static pid_t fault_target;

static void inject_fault(const char *step, int n)
{
    (void)n;
    if (strcmp(step, fault_step) != 0 || ++fault_seen != fault_n)
        return;
    static const struct { const char *name; int sig; } actions[] = {
        {"kill", SIGKILL}, {"int", SIGINT}, {"term", SIGTERM}, {"hup", SIGHUP}, {"stop", SIGSTOP}};
    for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
        if (strcmp(fault_action, actions[i].name) == 0)
            kill(actions[i].sig == SIGSTOP ? fault_target : getpid(), actions[i].sig);
}

static void arm_fault(pid_t target)
{
    const char *spec = getenv("RPERF_ATTACH_FAULT");
    if (!spec || !*spec)
        return;
    if (sscanf(spec, "%31[a-z-]:%d:%7s", fault_step, &fault_n, fault_action) != 3 &&
        sscanf(spec, "%31[a-z-]:%7s", fault_step, fault_action) != 2)
        return;
    fault_target = target;
    rp_borrow_step_hook = inject_fault;
}

/* The signals that end us, held while a thread is borrowed: they act
 * once it is given back. */
static void hold_signals(bool hold, sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU, SIGALRM, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
        sigaddset(&set, signals[i]);
    if (hold)
        sigprocmask(SIG_BLOCK, &set, old);
    else
        sigprocmask(SIG_SETMASK, old, NULL);
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
    target_libc libc = {0};
    status = find_target_libc(&t, &libc);
    if (status)
        return status;
    arm_fault(t.pid);
    sigset_t held;
    hold_signals(true, &held);
    rp_borrowed *b = borrow_timer_thread(&t, &libc, &status);
    if (!b) {
        hold_signals(false, &held);
        return status;
    }
    status = hand_over(&t, b, &libc, agent, command);
    int64_t stopped = rp_borrowed_stopped_ns(b);
    char why[WHY_SIZE];
    if (!rp_give_back(b, why, sizeof(why)))
        status = refuse(&t, "giving its thread back failed: %s", why);
    hold_signals(false, &held);
    if (verbose)
        fprintf(stderr, "%s: process %ld: its timer thread was stopped for %.2f ms%s\n", program, pid,
                (double)stopped / 1e6, loaded ? "" : " (the agent loaded)");
    if (status == 0 && awaits)
        status = await_reply(&t, reply, deadline, wait_s);
    return status;
}
