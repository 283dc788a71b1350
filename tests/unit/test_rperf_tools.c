/*
 * Unit tests for rperf/tools.c: a program rperf runs in a process group
 * of its own (rperf-attach, whose stop must not die halfway) survives the
 * signals sent to rperf's group while it is being started — a Ctrl-C, or
 * timeout(1) killing the whole group right after rperf. The test makes
 * its own process group, and a helper in it sends SIGINT to the group
 * without pause while children are forked.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../rperf/tools.h"

#define STARTS 300

/* A process of our group that sends SIGINT to the group until killed —
 * or until the test is gone, or a minute has passed, should the test die
 * before it kills it. */
static pid_t start_interrupter(void)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_IGN);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        struct timespec pause = {0, 20000};
        time_t end = time(NULL) + 60;
        while (getppid() == parent && time(NULL) < end) {
            kill(0, SIGINT);
            nanosleep(&pause, NULL);
        }
        _exit(0);
    }
    return pid;
}

static void stop_interrupter(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* How many of STARTS runs of /bin/true, with `flags`, did not exit 0
 * (killed by the SIGINTs) while the group is interrupted without pause.
 * SIGINT is held here meanwhile, as rperf holds it while a command is in
 * the agent's hands; what reached this process is dropped after. */
static int killed_among_starts(int flags)
{
    sigset_t held, was;
    sigemptyset(&held);
    sigaddset(&held, SIGINT);
    sigprocmask(SIG_BLOCK, &held, &was);
    pid_t interrupter = start_interrupter();
    assert_true(interrupter > 0);
    char *argv[] = {"/bin/true", NULL};
    char out[64];
    int killed = 0;
    for (int i = 0; i < STARTS; i++)
        killed += rperf_run_capture(argv, flags, out, sizeof(out)) != 0;
    stop_interrupter(interrupter);
    signal(SIGINT, SIG_IGN); /* drops the pending one */
    signal(SIGINT, SIG_DFL);
    sigprocmask(SIG_SETMASK, &was, NULL);
    return killed;
}

static void test_own_group_survives_signals_to_rperfs_group(void **state)
{
    (void)state;
    assert_int_equal(killed_among_starts(RPERF_OWN_GROUP), 0);
}

/* The injection reaches children: one left in rperf's group dies of it. */
static void test_the_interrupter_kills_children_in_the_group(void **state)
{
    (void)state;
    assert_true(killed_among_starts(0) > 0);
}

int main(void)
{
    /* A group of our own: the interrupter must reach no one else. */
    if (setpgid(0, 0) != 0 && getpgrp() != getpid())
        return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_interrupter_kills_children_in_the_group),
        cmocka_unit_test(test_own_group_survives_signals_to_rperfs_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
