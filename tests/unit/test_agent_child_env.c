/*
 * Unit tests for agent/child_env: what a child's environment gets.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../agent/base/child_env.h"

static const char *strip(const char *preload)
{
    static char out[512];
    rp_child_env_strip_preload(preload, "librperf-agent.so", out, sizeof(out));
    return out;
}

static void test_agent_entries_are_stripped(void **state)
{
    (void)state;
    assert_string_equal(strip("/opt/rperf/lib/librperf-agent.so"), "");
    assert_string_equal(strip("/a/libx.so:/opt/rperf/lib/librperf-agent.so"), "/a/libx.so");
    assert_string_equal(strip("librperf-agent.so /a/liby.so"), "/a/liby.so");
    assert_string_equal(strip(" /a/libx.so::/b/liby.so  librperf-agent.so:"), "/a/libx.so:/b/liby.so");
    assert_string_equal(strip("/a/librperf-agent.so.bak"), "/a/librperf-agent.so.bak");
    assert_string_equal(strip(""), "");
}

/* The environment built for a child, as "K=V|K=V|...". */
static const char *child_env(char *const envp[])
{
    static char joined[2048];
    char *out[32], scratch[512];
    char *const *env = rp_child_env(envp, out, scratch, sizeof(scratch));
    joined[0] = '\0';
    for (size_t i = 0; env[i]; i++) {
        if (i)
            strcat(joined, "|");
        strcat(joined, env[i]);
    }
    return joined;
}

static void test_session_goes_to_profiled_children_only(void **state)
{
    (void)state;
    rp_child_env_init("/tmp/s", 42, true, "/opt/lib/librperf-agent.so");
    char *with_agent[] = {"PATH=/bin", "LD_PRELOAD=/x/librperf-agent.so", "_RPERF_SESSION=7:/old", NULL};
    assert_string_equal(child_env(with_agent),
                        "PATH=/bin|LD_PRELOAD=/x/librperf-agent.so|_RPERF_SESSION=42:/tmp/s");
    /* a child that will not load the agent keeps its environment as given */
    char *without[] = {"PATH=/bin", "RPERF_SESSION_DIR=/elsewhere", NULL};
    assert_ptr_equal(rp_child_env(without, NULL, NULL, 0), without);
    char *other_preload[] = {"LD_PRELOAD=/a/libx.so", NULL};
    assert_string_equal(child_env(other_preload), "LD_PRELOAD=/a/libx.so");
}

static void test_no_inherit_strips_the_agent(void **state)
{
    (void)state;
    rp_child_env_init("/tmp/s", 42, false, "/opt/lib/librperf-agent.so");
    char *envp[] = {"A=1", "LD_PRELOAD=/a/libx.so:/opt/lib/librperf-agent.so", "RPERF_SESSION_DIR=/u", NULL};
    assert_string_equal(child_env(envp), "A=1|LD_PRELOAD=/a/libx.so|RPERF_SESSION_DIR=/u");
    assert_int_equal(rp_child_env_capacity(envp), 5);
    assert_int_equal(rp_child_env_scratch_size(envp), strlen(envp[1]) + 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agent_entries_are_stripped),
        cmocka_unit_test(test_session_goes_to_profiled_children_only),
        cmocka_unit_test(test_no_inherit_strips_the_agent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
