/*
 * Unit tests for agent/inherit: removing the agent from LD_PRELOAD.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../agent/inherit.h"

static const char *strip(const char *preload)
{
    static char out[512];
    rp_inherit_strip(preload, "/opt/rperf/lib/librperf-agent.so", out, sizeof(out));
    return out;
}

static void test_agent_entries_are_removed(void **state)
{
    (void)state;
    assert_string_equal(strip("/opt/rperf/lib/librperf-agent.so"), "");
    assert_string_equal(strip("/a/libx.so:/opt/rperf/lib/librperf-agent.so"), "/a/libx.so");
    assert_string_equal(strip("/opt/rperf/lib/librperf-agent.so:/a/libx.so"), "/a/libx.so");
    /* same file name elsewhere (a copy, a relative path) */
    assert_string_equal(strip("build/agent/librperf-agent.so /a/liby.so"), "/a/liby.so");
    /* spaces and colons both separate; empty entries vanish */
    assert_string_equal(strip(" /a/libx.so::/b/liby.so  librperf-agent.so:"), "/a/libx.so:/b/liby.so");
    assert_string_equal(strip(""), "");
    assert_string_equal(strip("/a/librperf-agent.so.bak"), "/a/librperf-agent.so.bak");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agent_entries_are_removed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
