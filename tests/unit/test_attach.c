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
        epoll_result = epoll_wait(epoll_fd, &ev, 1, -1);
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

/* The child: a waiter thread; exits 0 only when the waiter's epoll_wait
 * (interrupted by the borrowing, then restarted) returned the one event
 * the parent sends afterwards. */
static void child_main(int ready_pipe)
{
    pthread_t w;
    if (pthread_create(&w, NULL, waiter, NULL) != 0)
        _exit(2);
    char c = 'r';
    if (write(ready_pipe, &c, 1) != 1)
        _exit(3);
    pthread_join(w, NULL);
    _exit(epoll_result == 1 ? 0 : 4);
}

static void test_remote_call(void **state)
{
    (void)state;
    int pipe_fds[2];
    assert_int_equal(pipe(pipe_fds), 0);
    make_waiter_fds(); /* shared with the child */
    pid_t child = fork();
    if (child == 0)
        child_main(pipe_fds[1]);
    char c;
    assert_int_equal(read(pipe_fds[0], &c, 1), 1);
    pid_t tids[8];
    int found = 0;
    for (int i = 0; i < 200 && found == 0; i++) {
        pause_ms(5);
        found = rp_target_epoll_threads(child, tids, 8);
    }
    assert_int_equal(found, 1);

    char why[256];
    rp_borrowed *b = rp_borrow(child, tids[0], is_epoll, why, sizeof(why));
    if (!b)
        fail_msg("borrow: %s", why);
    rp_target t;
    assert_true(rp_target_read(child, &t));
    assert_int_equal(t.tracer, getpid());
    /* The child is a fork: its libc is where ours is. */
    uint64_t text = rp_borrowed_push(b, "hello", 6), ret = 0;
    assert_true(text != 0 && text < rp_borrowed_sp(b));
    assert_true(rp_borrowed_call(b, (uint64_t)(uintptr_t)strlen, text, 0, &ret, 2000, why, sizeof(why)));
    assert_int_equal(ret, 5);
    assert_true(rp_borrowed_call(b, (uint64_t)(uintptr_t)getpid, 0, 0, &ret, 2000, why, sizeof(why)));
    assert_int_equal((pid_t)ret, child);
    /* A call that crashes is said, and the thread is still given back. */
    assert_false(rp_borrowed_call(b, 8, 0, 0, &ret, 2000, why, sizeof(why)));
    assert_non_null(strstr(why, "crashed"));
    assert_true(rp_borrowed_stopped_ns(b) > 0);
    assert_true(rp_give_back(b, why, sizeof(why)));
    assert_true(rp_target_read(child, &t));
    assert_int_equal(t.tracer, 0);

    /* A thread not in an accepted system call is let go at once. */
    assert_null(rp_borrow(child, tids[0], no_system_call, why, sizeof(why)));
    if (!strstr(why, "not waiting"))
        fail_msg("refused for another reason: %s", why);
    assert_true(rp_target_read(child, &t));
    assert_int_equal(t.tracer, 0);

    wake_waiter();
    int status = -1;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elf_symbols),
        cmocka_unit_test(test_proc_target),
        cmocka_unit_test(test_remote_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
