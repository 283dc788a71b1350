/*
 * Unit tests for attach/: dynamic symbols of ELF files, the process as
 * /proc shows it, and a call made on a borrowed thread of a child
 * process — which must then go on exactly as before (its epoll_wait,
 * retried after EINTR as Ruby's timer thread does, gets the event the
 * parent sends afterwards).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../attach/elf_symbols.h"
#include "../../attach/proc_target.h"
#include "../../attach/remote_call.h"

static void pause_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

static void test_elf_symbols(void **state)
{
    (void)state;
    Dl_info libc;
    assert_true(dladdr((void *)dlopen, &libc));
    uint64_t value = 0, base = 1;
    assert_true(rp_elf_dynamic_symbol(libc.dli_fname, "dlopen", &value, &base));
    assert_int_equal(base, 0); /* a shared library links at 0 */
    assert_int_equal(value, (uint64_t)((uintptr_t)dlopen - (uintptr_t)libc.dli_fbase));
    assert_false(rp_elf_dynamic_symbol(libc.dli_fname, "no_such_symbol_here", &value, &base));
    assert_false(rp_elf_dynamic_symbol("/nonexistent/libx.so", "dlopen", &value, &base));

    /* Not an ELF file, and an ELF file cut short: refused, no crash. */
    char text[] = "/tmp/rperf-elf-XXXXXX";
    int fd = mkstemp(text);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "hello, not ELF\n", 15), 15);
    close(fd);
    assert_false(rp_elf_dynamic_symbol(text, "dlopen", &value, &base));
    FILE *in = fopen(libc.dli_fname, "rb"), *out = fopen(text, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char head[4096];
    size_t n = fread(head, 1, sizeof(head), in);
    fwrite(head, 1, n, out);
    fclose(in);
    fclose(out);
    assert_false(rp_elf_dynamic_symbol(text, "dlopen", &value, &base));
    unlink(text);
}

static int epoll_fd, event_fd;
static int epoll_result = -2;

/* A thread waiting in epoll_wait for event_fd, as Ruby's timer thread:
 * which also retries on EINTR, what epoll_wait returns after any stop
 * (a ptrace interrupt too; see signal(7)). */
static void *waiter(void *unused)
{
    (void)unused;
    struct epoll_event ev;
    do
        epoll_result = epoll_wait(epoll_fd, &ev, 1, 20000); /* a failed test's child ends */
    while (epoll_result < 0 && errno == EINTR);
    return NULL;
}

static void make_waiter_fds(void)
{
    epoll_fd = epoll_create1(0);
    event_fd = eventfd(0, 0);
    struct epoll_event ev = {.events = EPOLLIN};
    assert_int_equal(epoll_ctl(epoll_fd, EPOLL_CTL_ADD, event_fd, &ev), 0);
}

static void wake_waiter(void)
{
    uint64_t one = 1;
    assert_int_equal(write(event_fd, &one, sizeof(one)), sizeof(one));
}

static void test_proc_target(void **state)
{
    (void)state;
    rp_target t;
    assert_true(rp_target_read(getpid(), &t));
    assert_int_equal(t.pid, getpid());
    assert_int_equal(t.uid, getuid());
    assert_int_equal(t.tracer, 0);
    assert_string_equal(t.name, "test_attach");
    assert_false(rp_target_read(999999999, &t));

    rp_mapped libc;
    assert_true(rp_target_find_mapped(getpid(), "libc.so", true, &libc));
    assert_non_null(strstr(libc.path, "libc.so"));
    assert_false(rp_target_find_mapped(getpid(), "libc.so", false, &libc)); /* the name is libc.so.6 */

    static const int known[3] = {3, 4, 5};
    int read_back[3] = {0};
    assert_true(rp_target_read_memory(getpid(), (uint64_t)(uintptr_t)known, read_back, sizeof(read_back)));
    assert_memory_equal(read_back, known, sizeof(known));
    uint64_t low;
    assert_true(rp_target_mapping_of(getpid(), (uint64_t)(uintptr_t)&low, &low));

    pthread_t w;
    make_waiter_fds();
    assert_int_equal(pthread_create(&w, NULL, waiter, NULL), 0);
    pid_t tids[8];
    int found = 0;
    for (int i = 0; i < 100 && found == 0; i++) {
        pause_ms(5);
        found = rp_target_epoll_threads(getpid(), tids, 8);
    }
    assert_int_equal(found, 1);
    assert_true(rp_target_thread_takes_segv(getpid(), tids[0]));
    sigset_t segv, old;
    sigemptyset(&segv);
    sigaddset(&segv, SIGSEGV);
    pthread_sigmask(SIG_BLOCK, &segv, &old);
    assert_false(rp_target_thread_takes_segv(getpid(), (pid_t)syscall(SYS_gettid)));
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    wake_waiter();
    pthread_join(w, NULL);
    assert_int_equal(epoll_result, 1);
}

static bool is_epoll(long nr)
{
    return nr == SYS_epoll_wait || nr == SYS_epoll_pwait || nr == SYS_epoll_pwait2;
}

static bool no_system_call(long nr)
{
    (void)nr;
    return false;
}

/* --- the borrowed child ---------------------------------------------------- */

/* What the child says before it exits: whether its waiter's epoll_wait
 * got the parent's one event in the end, whether its floating-point
 * control (callee-saved: the calls change it, and must give it back)
 * held, how many of our calls it ran, and how many SIGUSR1 reached it. */
typedef struct child_report {
    int epoll_result;
    unsigned mxcsr;
    int calls;
    int usr1;
} child_report;

#define WAITER_MXCSR 0x9fc0u /* flush-to-zero and denormals-are-zero on */
#define CALL_MARK 0x5ca1ab1eu

static volatile int calls_done;
static volatile sig_atomic_t usr1_seen;
static unsigned waiter_mxcsr;

static void on_usr1(int sig)
{
    (void)sig;
    usr1_seen++;
}

/* A function the parent calls in the child (a fork: its addresses are
 * ours): writes a mark where `out` points, and clobbers what a call may
 * — the SSE control and vector registers — for the signal return to
 * give back. */
static void test_call(uint32_t *out)
{
    unsigned dflt = 0x1f80;
    __asm__ volatile("ldmxcsr %0" ::"m"(dflt));
    __asm__ volatile("pxor %%xmm6, %%xmm6\n\tpcmpeqd %%xmm7, %%xmm7" ::: "xmm6", "xmm7");
    calls_done++;
    if (out)
        *out = CALL_MARK;
}

/* The same after 50 ms asleep: a call long enough to be interrupted, with
 * system calls of its own. */
static void slow_test_call(uint32_t *out)
{
    pause_ms(50);
    test_call(out);
}

static void *mxcsr_waiter(void *unused)
{
    __asm__ volatile("ldmxcsr %0" ::"m"(*(unsigned[]){WAITER_MXCSR}));
    waiter(unused);
    __asm__ volatile("stmxcsr %0" : "=m"(waiter_mxcsr));
    return NULL;
}

static void child_main(int ready_pipe, int report_pipe)
{
    signal(SIGUSR1, on_usr1);
    pthread_t w;
    if (pthread_create(&w, NULL, mxcsr_waiter, NULL) != 0)
        _exit(2);
    char c = 'r';
    if (write(ready_pipe, &c, 1) != 1)
        _exit(3);
    pthread_join(w, NULL);
    child_report r = {epoll_result, waiter_mxcsr, calls_done, (int)usr1_seen};
    _exit(write(report_pipe, &r, sizeof(r)) == sizeof(r) ? 0 : 4);
}

typedef struct borrowed_child {
    pid_t pid, tid;
    int report_fd;
} borrowed_child;

static borrowed_child start_child(void)
{
    int ready[2], report[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(report), 0);
    make_waiter_fds(); /* shared with the child */
    pid_t child = fork();
    if (child == 0)
        child_main(ready[1], report[1]);
    close(ready[1]);
    close(report[1]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    pid_t tids[8];
    int found = 0;
    for (int i = 0; i < 200 && found == 0; i++) {
        pause_ms(5);
        found = rp_target_epoll_threads(child, tids, 8);
    }
    assert_int_equal(found, 1);
    return (borrowed_child){child, tids[0], report[0]};
}

/* Wakes the child's waiter and checks what it says: every call it ran
 * counted, its control register its own again, its epoll_wait whole. */
static void finish_child(borrowed_child c, int calls, int usr1)
{
    wake_waiter();
    child_report r = {0};
    assert_int_equal(read(c.report_fd, &r, sizeof(r)), sizeof(r));
    int status = -1;
    assert_int_equal(waitpid(c.pid, &status, 0), c.pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(r.epoll_result, 1);
    assert_int_equal(r.mxcsr, WAITER_MXCSR);
    assert_int_equal(r.calls, calls);
    assert_int_equal(r.usr1, usr1);
    close(c.report_fd);
}

/* Where our libc's signal-return code is (the child's is the same),
 * found as rperf-attach finds a target's. */
static uint64_t our_restorer(void)
{
    rp_mapped libc;
    char file[PATH_MAX + 32];
    uint64_t value, base;
    assert_true(rp_target_find_libc(getpid(), &libc, file, sizeof(file)));
    assert_true(rp_elf_find_code(file, rp_restorer_code, sizeof(rp_restorer_code), &value, &base));
    uint64_t at = libc.start + value - base;
    assert_memory_equal((void *)(uintptr_t)at, rp_restorer_code, sizeof(rp_restorer_code));
    return at;
}

/* Borrows the child's waiter, once it waits again (after a give-back it
 * returns from epoll_wait with EINTR and calls it anew). */
static rp_borrowed *borrow_waiter(borrowed_child c)
{
    char why[256] = "";
    for (int attempt = 0; attempt < 200; attempt++) {
        rp_borrowed *b = rp_borrow(c.pid, c.tid, our_restorer(), is_epoll, why, sizeof(why));
        if (b)
            return b;
        pause_ms(2);
    }
    fail_msg("borrow: %s", why);
    return NULL;
}

static void assert_untraced(pid_t pid)
{
    rp_target t;
    assert_true(rp_target_read(pid, &t));
    assert_int_equal(t.tracer, 0);
}

static void test_remote_call(void **state)
{
    (void)state;
    borrowed_child c = start_child();
    char why[256];
    rp_borrowed *b = borrow_waiter(c);
    rp_target t;
    assert_true(rp_target_read(c.pid, &t));
    assert_int_equal(t.tracer, getpid());
    /* Results come back through memory. */
    uint32_t zero = 0, mark = 0;
    uint64_t text = rp_borrowed_push(b, "hello", 6), out = rp_borrowed_push(b, &zero, sizeof(zero));
    assert_true(text != 0 && text < rp_borrowed_sp(b) && out != 0);
    char copy[6] = "";
    uint64_t copy_at = rp_borrowed_push(b, copy, sizeof(copy));
    assert_int_equal(rp_borrowed_call(b, (uint64_t)(uintptr_t)memcpy, copy_at, text, 6, 2000, why, sizeof(why)),
                     RP_CALL_RETURNED);
    assert_true(rp_borrowed_read(b, copy_at, copy, sizeof(copy)));
    assert_string_equal(copy, "hello");
    assert_int_equal(rp_borrowed_call(b, (uint64_t)(uintptr_t)slow_test_call, out, 0, 0, 2000, why, sizeof(why)),
                     RP_CALL_RETURNED);
    assert_true(rp_borrowed_read(b, out, &mark, sizeof(mark)));
    assert_int_equal(mark, CALL_MARK);
    assert_true(rp_borrowed_stopped_ns(b) > 0);
    assert_true(rp_give_back(b, why, sizeof(why)));
    assert_untraced(c.pid);

    /* A call that crashes is said, and the thread is put back as it was. */
    b = borrow_waiter(c);
    assert_int_equal(rp_borrowed_call(b, 8, 0, 0, 0, 2000, why, sizeof(why)), RP_CALL_CRASHED);
    assert_non_null(strstr(why, "crashed"));
    assert_int_equal(rp_borrowed_call(b, (uint64_t)(uintptr_t)test_call, 0, 0, 0, 2000, why, sizeof(why)),
                     RP_CALL_NOT_MADE);
    assert_true(rp_give_back(b, why, sizeof(why)));
    assert_untraced(c.pid);

    /* A thread not in an accepted system call is let go at once. */
    rp_give_back(borrow_waiter(c), why, sizeof(why)); /* it waits again */
    assert_null(rp_borrow(c.pid, c.tid, our_restorer(), no_system_call, why, sizeof(why)));
    if (!strstr(why, "not waiting"))
        fail_msg("refused for another reason: %s", why);
    assert_untraced(c.pid);
    finish_child(c, 1, 0);
}

/* --- failures of everyone else ------------------------------------------- */

/* The tracer's side of one injected failure, in a process of its own. */
typedef struct fault {
    const char *step; /* remote_call.h's step names */
    int nth;
    const char *action; /* "kill": the tracer dies; "stop": the child is
                           stopped, continued 100 ms later; "usr1": a
                           signal for the borrowed thread */
    int timeout_ms;
} fault;

static const fault *current_fault;
static pid_t fault_pid, fault_tid;
static int fault_seen;

static void fault_hook(const char *step, int n)
{
    (void)n;
    if (strcmp(step, current_fault->step) != 0 || ++fault_seen != current_fault->nth)
        return;
    if (strcmp(current_fault->action, "kill") == 0)
        kill(getpid(), SIGKILL);
    else if (strcmp(current_fault->action, "stop") == 0)
        kill(fault_pid, SIGSTOP);
    else
        syscall(SYS_tgkill, fault_pid, fault_tid, SIGUSR1);
}

/* The tracer: one slow call, failing as `f` says. Exits 0 when the call
 * came back, 1 when it was left to return by itself. */
static void tracer_main(borrowed_child c, const fault *f)
{
    char why[256];
    current_fault = f;
    fault_pid = c.pid;
    fault_tid = c.tid;
    rp_borrow_step_hook = fault_hook;
    rp_borrowed *b = borrow_waiter(c);
    rp_call_outcome o =
        rp_borrowed_call(b, (uint64_t)(uintptr_t)slow_test_call, 0, 0, 0, f->timeout_ms, why, sizeof(why));
    rp_give_back(b, why, sizeof(why));
    if (o != RP_CALL_RETURNED)
        fprintf(stderr, "tracer (%s:%d %s): %s\n", f->step, f->nth, f->action, why);
    _exit(o == RP_CALL_RETURNED ? 0 : o == RP_CALL_LEFT ? 1 : 2);
}

static void test_tracer_failures(void **state)
{
    (void)state;
    static const fault faults[] = {
        {"stopped", 1, "kill", 2000},     /* before any call: untouched */
        {"call-ready", 1, "kill", 2000},  /* registers set, never resumed */
        {"in-call", 1, "kill", 2000},     /* at the call's first system call */
        {"in-call", 2, "kill", 2000},
        {"returning", 1, "kill", 2000},   /* at its signal return */
        {"returned", 1, "kill", 2000},    /* back, not yet detached */
        {"in-call", 1, "usr1", 2000},     /* a signal for it meanwhile */
        {"in-call", 1, "stop", 2000},     /* its process stopped meanwhile */
        {"in-call", 1, "stop", 30},       /* ... for longer than we wait */
    };
    int nfaults = (int)(sizeof(faults) / sizeof(faults[0]));
    borrowed_child c = start_child();
    int calls = 0, usr1 = 0;
    for (int i = 0; i < nfaults; i++) {
        const fault *f = &faults[i];
        pid_t tracer = fork();
        if (tracer == 0)
            tracer_main(c, f);
        if (strcmp(f->action, "stop") == 0) {
            pause_ms(130);
            kill(c.pid, SIGCONT);
        }
        int status = -1;
        assert_int_equal(waitpid(tracer, &status, 0), tracer);
        bool killed = strcmp(f->action, "kill") == 0;
        if (killed) {
            assert_true(WIFSIGNALED(status));
        } else {
            if (!WIFEXITED(status) || WEXITSTATUS(status) != (f->timeout_ms < 100 ? 1 : 0))
                fail_msg("fault %d (%s:%d %s): the tracer ended with status %#x", i, f->step, f->nth, f->action,
                         status);
        }
        calls += strcmp(f->step, "stopped") != 0;
        usr1 += strcmp(f->action, "usr1") == 0;
        pause_ms(120); /* a call left running ends by itself */
        assert_untraced(c.pid);
        rp_target t;
        assert_true(rp_target_read(c.pid, &t));
        if (t.state == 'T' || t.state == 't')
            fail_msg("fault %d (%s:%d %s) left the child stopped", i, f->step, f->nth, f->action);
    }
    finish_child(c, calls, usr1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elf_symbols),
        cmocka_unit_test(test_proc_target),
        cmocka_unit_test(test_remote_call),
        cmocka_unit_test(test_tracer_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
