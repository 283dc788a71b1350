/*
 * Unit tests for common/flatcum and analyzer/report: the gem's text layout.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../profile/encode/report.h"
#include "../../profile/flatcum.h"
#include "helpers.h"

static void make_profile(rp_profile *p)
{
    assert_int_equal(rp_profile_init(p, true), 0);
    p->meta.frequency = 1000;
    p->meta.sampling_count = 2034;
    /* recursion: fib appears three times on one stack */
    add_sample(p, 2000000000, 1, 0, "fib.rb|Object#fibonacci", "fib.rb|Object#fibonacci",
               "fib.rb|Object#fibonacci", "fib.rb|<main>", NULL);
    add_sample(p, 34200000, 1, 0, "<C method>|Integer#+", "fib.rb|Object#fibonacci",
               "fib.rb|<main>", NULL);
    add_sample(p, 0, 1, 0, "x.rb|Zero#weight", NULL);
    add_sample(p, 1500000, 2, 0, "|label without path", NULL);
}

static void test_flat_and_cumulative(void **state)
{
    (void)state;
    rp_profile p;
    rp_flatcum fc;
    make_profile(&p);
    assert_int_equal(rp_flatcum_compute(&p, &fc), 0);
    assert_int_equal(fc.total, 2035700000);
    assert_int_equal(fc.flat_count, 3); /* the zero-weight frame is left out */
    assert_int_equal(fc.flat[0].weight, 2000000000);
    assert_int_equal(fc.cum[0].weight, 2034200000); /* fib counted once per sample */
    rp_flatcum_free(&fc);
    rp_profile_free(&p);
}

static void test_report_layout(void **state)
{
    (void)state;
    rp_profile p;
    make_profile(&p);
    char *text = NULL;
    CAPTURE_OUTPUT(text, out, assert_int_equal(rp_report_write(&p, out, 50, true), 0));
    assert_string_equal(text,
                        "Total: 2035.7ms (cpu)\n"
                        "Samples: 2034, Frequency: 1000Hz\n"
                        "\n"
                        " Flat:\n"
                        "         2,000.0 ms  98.2%  Object#fibonacci (fib.rb)\n"
                        "            34.2 ms   1.7%  Integer#+ (<C method>)\n"
                        "             1.5 ms   0.1%  label without path\n"
                        "\n"
                        " Cumulative:\n"
                        "         2,034.2 ms  99.9%  Object#fibonacci (fib.rb)\n"
                        "         2,034.2 ms  99.9%  <main> (fib.rb)\n"
                        "            34.2 ms   1.7%  Integer#+ (<C method>)\n"
                        "             1.5 ms   0.1%  label without path\n");
    free(text);
    CAPTURE_OUTPUT(text, out, assert_int_equal(rp_report_write(&p, out, 1, false), 0));
    assert_string_equal(text, " Flat:\n"
                              "         2,000.0 ms  98.2%  Object#fibonacci (fib.rb)\n"
                              "\n"
                              " Cumulative:\n"
                              "         2,034.2 ms  99.9%  Object#fibonacci (fib.rb)\n");
    free(text);
    rp_profile_free(&p);
}

/* With lines, each line of a method is its own row, "label (path:line)". */
static void test_report_rows_with_lines(void **state)
{
    (void)state;
    rp_profile p;
    make_two_line_profile(&p, 2000000);
    char *text = NULL;
    CAPTURE_OUTPUT(text, out, assert_int_equal(rp_report_write(&p, out, 50, false), 0));
    assert_string_equal(text, " Flat:\n"
                              "             6.0 ms  66.7%  m (a.rb:3)\n"
                              "             2.0 ms  22.2%  m (a.rb:5)\n"
                              "             1.0 ms  11.1%  Kernel#sleep (<C method>)\n"
                              "\n"
                              " Cumulative:\n"
                              "             9.0 ms 100.0%  <main> (a.rb:9)\n"
                              "             6.0 ms  66.7%  m (a.rb:3)\n"
                              "             2.0 ms  22.2%  m (a.rb:5)\n"
                              "             1.0 ms  11.1%  Kernel#sleep (<C method>)\n");
    free(text);
    rp_profile_free(&p);
}

static void test_empty_profile(void **state)
{
    (void)state;
    rp_profile p;
    assert_int_equal(rp_profile_init(&p, true), 0);
    char *text = NULL;
    CAPTURE_OUTPUT(text, out, assert_int_equal(rp_report_write(&p, out, 50, true), 0));
    assert_string_equal(text, "No samples recorded.\n");
    free(text);
    rp_profile_free(&p);
}

/* report --by: one row per value, heaviest first, however long the values
 * (two that differ only after 70 characters stay apart), "(not set)" for
 * samples without the key; thread_seq is a key too. */
static void test_report_by(void **state)
{
    (void)state;
    rp_profile p;
    assert_int_equal(rp_profile_init(&p, true), 0);
    char a[101], b[101];
    memset(a, 'x', 100);
    a[100] = '\0';
    memcpy(b, a, sizeof(a));
    b[90] = 'y';
    uint32_t sa = label_set1(&p, "endpoint", a), sb = label_set1(&p, "endpoint", b);
    add_sample(&p, 3000000, 1, sa, "a.rb|m", NULL);
    add_sample(&p, 2000000, 2, sb, "a.rb|m", NULL);
    add_sample(&p, 1000000, 2, 0, "a.rb|n", NULL);
    char *text = NULL;
    CAPTURE_OUTPUT(text, out, assert_int_equal(rp_report_by_write(&p, out, "endpoint"), 0));
    char want[512];
    snprintf(want, sizeof(want),
             "Total: 6.0ms (cpu)\n\n By endpoint:\n"
             "             3.0 ms  50.0%%  %s\n             2.0 ms  33.3%%  %s\n"
             "             1.0 ms  16.7%%  (not set)\n", a, b);
    assert_string_equal(text, want);
    free(text);
    CAPTURE_OUTPUT(text, out, assert_int_equal(rp_report_by_write(&p, out, "thread_seq"), 0));
    assert_string_equal(text, "Total: 6.0ms (cpu)\n\n By thread_seq:\n"
                              "             3.0 ms  50.0%  1\n             3.0 ms  50.0%  2\n");
    free(text);
    rp_profile_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat_and_cumulative),
        cmocka_unit_test(test_report_layout),
        cmocka_unit_test(test_report_rows_with_lines),
        cmocka_unit_test(test_empty_profile),
        cmocka_unit_test(test_report_by),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
