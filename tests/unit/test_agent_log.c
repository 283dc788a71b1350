/*
 * Unit test for agent/base/log.c: the agent's lines, redirected to a file of
 * the session (rperf attach) again and again while another thread writes
 * lines (the worker), never land in a file the program opens meanwhile —
 * which a closed and reused descriptor number would give them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../agent/base/log.h"

static atomic_bool writing;

static void *writer(void *unused)
{
    (void)unused;
    while (atomic_load(&writing))
        rp_log("a line of the agent's");
    return NULL;
}

/* Whether the file holds any line of the agent's. */
static bool has_agent_line(const char *path)
{
    char buf[4096];
    FILE *f = fopen(path, "r");
    bool found = false;
    while (f && !found && fgets(buf, sizeof(buf), f))
        found = strstr(buf, "rperf:") != NULL;
    if (f)
        fclose(f);
    return found;
}

static void test_no_line_in_the_programs_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/rperf-log-XXXXXX", log_path[64], program_path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(log_path, sizeof(log_path), "%s/agent.log", dir);
    snprintf(program_path, sizeof(program_path), "%s/program", dir);
    atomic_store(&writing, true);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, writer, NULL), 0);
    int leaked = 0;
    for (int i = 0; i < 2000; i++) {
        rp_log_redirect(open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
        /* the program opens a file of its own, gets the lowest free number */
        int fd = open(program_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        usleep(20);
        close(fd);
        leaked += has_agent_line(program_path);
    }
    atomic_store(&writing, false);
    pthread_join(t, NULL);
    assert_true(has_agent_line(log_path));
    assert_int_equal(leaked, 0);
    unlink(log_path);
    unlink(program_path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_line_in_the_programs_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
