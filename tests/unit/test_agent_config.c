/*
 * Unit tests for agent/config: every RPERF_* variable, valid and not.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../agent/base/config.h"

static void clear_env(void)
{
    const char *vars[] = {"RPERF_MODE", "RPERF_FREQUENCY", "RPERF_SIGNAL", "RPERF_AGGREGATE",
                          "RPERF_INHERIT", "RPERF_QUIET", "RPERF_VERBOSE", "RPERF_LINES",
                          "RPERF_DEFER", "RPERF_MAX_STACKS", "RPERF_INTERVAL", "RPERF_META_GIT",
                          "RPERF_META_LABELS"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        unsetenv(vars[i]);
}

static void test_defaults(void **state)
{
    (void)state;
    rp_config c;
    clear_env();
    assert_int_equal(rp_config_load(&c), 0);
    assert_int_equal(c.mode, RP_MODE_CPU);
    assert_int_equal(c.frequency, 1000);
    assert_int_equal(c.gem_signal, SIGRTMIN + 8);
    assert_true(c.aggregate);
    assert_true(c.inherit);
    assert_false(c.quiet);
    assert_false(c.verbose);
    assert_int_equal(c.lines, RP_LINES_DEFAULT);
    assert_false(c.defer);
    assert_int_equal(c.max_stacks, RP_MAX_STACKS_DEFAULT);
    assert_int_equal(c.interval, 0);
}

static void test_valid_values(void **state)
{
    (void)state;
    rp_config c;
    clear_env();
    setenv("RPERF_MODE", "wall", 1);
    setenv("RPERF_FREQUENCY", "10000", 1);
    setenv("RPERF_SIGNAL", "false", 1);
    setenv("RPERF_AGGREGATE", "0", 1);
    setenv("RPERF_INHERIT", "0", 1);
    setenv("RPERF_QUIET", "1", 1);
    setenv("RPERF_LINES", "1", 1);
    setenv("RPERF_DEFER", "1", 1);
    setenv("RPERF_MAX_STACKS", "50", 1);
    setenv("RPERF_INTERVAL", "86400", 1);
    assert_int_equal(rp_config_load(&c), 0);
    assert_int_equal(c.max_stacks, 50);
    assert_int_equal(c.interval, 86400);
    assert_true(c.lines);
    assert_true(c.defer);
    assert_int_equal(c.mode, RP_MODE_WALL);
    assert_int_equal(c.frequency, 10000);
    assert_int_equal(c.gem_signal, SIGRTMIN + 8); /* false: the gem's default is watched */
    assert_false(c.aggregate);
    assert_false(c.inherit);
    assert_true(c.quiet);
    char sig[16];
    snprintf(sig, sizeof(sig), "%d", SIGRTMIN + 2);
    setenv("RPERF_SIGNAL", sig, 1);
    setenv("RPERF_FREQUENCY", "1", 1);
    assert_int_equal(rp_config_load(&c), 0);
    assert_int_equal(c.gem_signal, SIGRTMIN + 2);
    assert_int_equal(c.frequency, 1);
}

static void expect_invalid(const char *var, const char *value)
{
    rp_config c;
    clear_env();
    setenv(var, value, 1);
    if (rp_config_load(&c) != -1)
        fail_msg("%s=%s was accepted", var, value);
}

static void test_invalid_values_are_refused(void **state)
{
    (void)state;
    expect_invalid("RPERF_MODE", "gpu");
    expect_invalid("RPERF_MODE", "CPU");
    expect_invalid("RPERF_FREQUENCY", "0");
    expect_invalid("RPERF_FREQUENCY", "10001");
    expect_invalid("RPERF_FREQUENCY", "-5");
    expect_invalid("RPERF_FREQUENCY", "100hz");
    expect_invalid("RPERF_FREQUENCY", "");
    expect_invalid("RPERF_FREQUENCY", "99999999999999999999");
    expect_invalid("RPERF_SIGNAL", "9");  /* SIGKILL: not a real-time signal */
    expect_invalid("RPERF_SIGNAL", "true");
    expect_invalid("RPERF_AGGREGATE", "yes");
    expect_invalid("RPERF_INHERIT", "2");
    expect_invalid("RPERF_VERBOSE", "on");
    expect_invalid("RPERF_LINES", "yes");
    expect_invalid("RPERF_DEFER", "true");
    expect_invalid("RPERF_MAX_STACKS", "0");
    expect_invalid("RPERF_MAX_STACKS", "100000001");
    expect_invalid("RPERF_MAX_STACKS", "1e6");
    expect_invalid("RPERF_INTERVAL", "0");
    expect_invalid("RPERF_INTERVAL", "86401");
    expect_invalid("RPERF_INTERVAL", "10s");
}

/* The meta's objects: written again in one spelling; "null", a value
 * that is not a flat object or one too long are left out (said on
 * stderr), and the agent still profiles. */
static void test_meta_objects(void **state)
{
    (void)state;
    rp_config c;
    clear_env();
    setenv("RPERF_META_LABELS", " { \"ci\" : \"github\", \"pr\": 123, \"ci\": \"gh\\u0041\" } ", 1);
    setenv("RPERF_META_GIT", "{\"sha\":\"88e1a40\",\"dirty\":false}", 1);
    assert_int_equal(rp_config_load(&c), 0);
    assert_string_equal(c.meta_labels, "{\"ci\":\"ghA\",\"pr\":123}");
    assert_string_equal(c.meta_git, "{\"sha\":\"88e1a40\",\"dirty\":false}");
    setenv("RPERF_META_GIT", "null", 1);
    setenv("RPERF_META_LABELS", "{\"a\": {\"nested\": 1}}", 1);
    assert_int_equal(rp_config_load(&c), 0);
    assert_string_equal(c.meta_git, "");
    assert_string_equal(c.meta_labels, "");
    setenv("RPERF_META_LABELS", "[1, 2]", 1);
    assert_int_equal(rp_config_load(&c), 0);
    assert_string_equal(c.meta_labels, "");
    setenv("RPERF_META_LABELS", "{\"a\": \"b\"} trailing", 1);
    assert_int_equal(rp_config_load(&c), 0);
    assert_string_equal(c.meta_labels, "");
    clear_env();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_valid_values),
        cmocka_unit_test(test_invalid_values_are_refused),
        cmocka_unit_test(test_meta_objects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
