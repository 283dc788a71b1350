/*
 * Unit tests for the regression gate (profile/regress.h): the exact
 * Mann–Whitney tail against hand-counted values, the normal one beside an
 * exact one, and the verdict on hand-made runs — a method 30% slower in
 * every target run is named, alone; the same runs on both sides name
 * none; a method of a few samples whose runs rank apart by chance is not
 * named; one run per side can name none and says so; a method that got
 * slower by calling a shared helper more is named, not the helper; a
 * machine that slows whole runs down names none; a method that is all of
 * its runs is compared in milliseconds; the power is said.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "../../profile/regress.h"
#include "helpers.h"

static void test_exact_tail(void **state)
{
    (void)state;
    /* 5 against 5: 252 arrangements; U >= 25 in 1, U >= 21 in 12
     * (U <= 4: 1 + 1 + 2 + 3 + 5), U >= 0 in all */
    assert_true(fabs(rp_mann_whitney_p(25, 5, 5) - 1.0 / 252) < 1e-12);
    assert_true(fabs(rp_mann_whitney_p(21, 5, 5) - 12.0 / 252) < 1e-12);
    assert_true(fabs(rp_mann_whitney_p(0, 5, 5) - 1.0) < 1e-12);
    /* a tie's half rounds up: U = 20.5 counts as at least 21 */
    assert_true(fabs(rp_mann_whitney_p(20.5, 5, 5) - 12.0 / 252) < 1e-12);
    /* one against one: never below one half */
    assert_true(fabs(rp_mann_whitney_p(1, 1, 1) - 0.5) < 1e-12);
    /* symmetric: P(U >= nm/2 + k) = P(U <= nm/2 - k) */
    assert_true(fabs(rp_mann_whitney_p(30, 6, 8) - (1 - rp_mann_whitney_p(19, 6, 8))) < 1e-12);
}

static void test_normal_tail_near_exact(void **state)
{
    (void)state;
    /* 50 against 50 (2,500 pairs, exact) and 51 against 50 (normal) at
     * about two standard deviations above the mean */
    double exact = rp_mann_whitney_p(1250 + 2 * 145.06, 50, 50);
    double normal = rp_mann_whitney_p(1275 + 2 * 146.5, 51, 50);
    assert_true(exact > 0.015 && exact < 0.03);
    assert_true(normal > 0.015 && normal < 0.03);
}

/* A run: `a` ms in Object#a, `b` ms in Object#b, 5 ms in Kernel#puts. */
static void add_run(rp_regress *g, bool target, double a, double b)
{
    rp_profile p;
    assert_int_equal(rp_profile_init(&p, true), 0);
    add_sample(&p, (int64_t)(a * 1e6), 1, 0, "app.rb|Object#a", "app.rb|<main>", NULL);
    add_sample(&p, (int64_t)(b * 1e6), 1, 0, "app.rb|Object#b", "app.rb|<main>", NULL);
    add_sample(&p, 5000000, 1, 0, "<C method>|Kernel#puts", "app.rb|<main>", NULL);
    assert_int_equal(rp_regress_add_run(g, target, &p), 0);
    rp_profile_free(&p);
}

static const double wobble[5] = {0.97, 1.02, 0.99, 1.03, 1.00};

static void test_one_method_thirty_percent_slower(void **state)
{
    (void)state;
    rp_regress g;
    rp_regress_init(&g, 10);
    for (int i = 0; i < 5; i++) {
        add_run(&g, false, 200 * wobble[i], 300 * wobble[4 - i]);
        add_run(&g, true, 260 * wobble[4 - i], 300 * wobble[i]);
    }
    assert_int_equal(rp_regress_compute(&g), 0);
    /* a and b: puts is 5 samples a run, and a path on from a or b through
     * their one caller, <main>, has no siblings to be measured against */
    assert_int_equal(g.compared, 2);
    assert_int_equal(g.found_count, 1);
    assert_string_equal(rp_strtab_get(&g.names, g.found[0].method, NULL), "Object#a (app.rb)");
    assert_true(fabs(g.found[0].growth_pct - 30) < 1);
    assert_true(g.found[0].p < RP_REGRESS_ALPHA);
    rp_regress_free(&g);
}

static void test_same_runs_name_none(void **state)
{
    (void)state;
    rp_regress g;
    rp_regress_init(&g, 10);
    for (int i = 0; i < 5; i++) {
        add_run(&g, false, 200 * wobble[i], 300 * wobble[4 - i]);
        add_run(&g, true, 200 * wobble[4 - i], 300 * wobble[i]);
    }
    assert_int_equal(rp_regress_compute(&g), 0);
    assert_int_equal(g.found_count, 0);
    rp_regress_free(&g);
}

static void test_a_few_samples_apart_name_none(void **state)
{
    (void)state;
    rp_regress g;
    rp_regress_init(&g, 10);
    /* b: 3 or 4 samples a run (1 ms each) against 5 or 6: every target run
     * above every base run, +60%, but within what sampling gives */
    const double base_b[] = {3, 4, 3, 3, 4}, target_b[] = {5, 6, 5, 6, 5};
    for (int i = 0; i < 5; i++) {
        add_run(&g, false, 200 * wobble[i], base_b[i]);
        add_run(&g, true, 200 * wobble[4 - i], target_b[i]);
    }
    assert_int_equal(rp_regress_compute(&g), 0);
    assert_int_equal(g.found_count, 0);
    rp_regress_free(&g);
}

static void test_one_run_each_names_none_and_says_so(void **state)
{
    (void)state;
    rp_regress g;
    rp_regress_init(&g, 10);
    add_run(&g, false, 200, 300);
    add_run(&g, true, 400, 300); /* doubled, but one run proves nothing */
    assert_int_equal(rp_regress_compute(&g), 0);
    assert_int_equal(g.found_count, 0);
    char *text = NULL;
    CAPTURE_OUTPUT(text, out, assert_int_equal(rp_regress_write(out, &g, false), 0));
    assert_non_null(strstr(text, "no method can be called significant"));
    free(text);
    rp_regress_free(&g);
}

/* A run of Object#m and Object#n both calling Object#burn, which spends
 * its time in Process.clock_gettime, and 100 ms of Object#setup; `slow`
 * times everything (a machine slower for that run). */
static void add_shared_run(rp_regress *g, bool target, double m, double n, double slow)
{
    rp_profile p;
    assert_int_equal(rp_profile_init(&p, true), 0);
    add_sample(&p, (int64_t)(m * slow * 1e6), 1, 0, "<C method>|Process.clock_gettime", "app.rb|Object#burn",
               "app.rb|Object#m", "app.rb|<main>", NULL);
    add_sample(&p, (int64_t)(n * slow * 1e6), 1, 0, "<C method>|Process.clock_gettime", "app.rb|Object#burn",
               "app.rb|Object#n", "app.rb|<main>", NULL);
    add_sample(&p, (int64_t)(0.1 * (m + n) * slow * 1e6), 1, 0, "app.rb|Object#burn", "app.rb|Object#m",
               "app.rb|<main>", NULL);
    add_sample(&p, (int64_t)(100 * slow * 1e6), 1, 0, "app.rb|Object#setup", "app.rb|<main>", NULL);
    assert_int_equal(rp_regress_add_run(g, target, &p), 0);
    rp_profile_free(&p);
}

static void test_the_caller_that_got_slower_is_named(void **state)
{
    (void)state;
    rp_regress g;
    rp_regress_init(&g, 10);
    for (int i = 0; i < 5; i++) {
        add_shared_run(&g, false, 300 * wobble[i], 300 * wobble[4 - i], 1);
        add_shared_run(&g, true, 390 * wobble[4 - i], 300 * wobble[i], 1);
    }
    assert_int_equal(rp_regress_compute(&g), 0);
    assert_int_equal(g.found_count, 1);
    assert_string_equal(rp_strtab_get(&g.names, g.found[0].method, NULL), "Object#m (app.rb)");
    assert_false(g.found[0].in_ms);
    char *text = NULL;
    CAPTURE_OUTPUT(text, out, assert_int_equal(rp_regress_write(out, &g, false), 0));
    assert_non_null(strstr(text, "where the time went: Object#m (app.rb) → Object#burn (app.rb)\n"));
    assert_non_null(strstr(text, "is found 4 times in 5"));
    free(text);
    /* the power: at most a few percent of noise a run (here many paths'
     * times keep exact proportions to their runs' rest), over 5 and 5
     * runs: found from the 10% threshold to a few points above it */
    assert_true(g.noise >= 0 && g.noise < 0.1);
    assert_true(g.detectable_pct >= 10 && g.detectable_pct < 25);
    rp_regress_free(&g);
}

static void test_a_slower_machine_names_none(void **state)
{
    (void)state;
    rp_regress g;
    rp_regress_init(&g, 10);
    /* every target run 1.4 to 2.2 times slower in everything, as a busy core makes it */
    const double slow[5] = {1.4, 2.2, 1.7, 1.9, 1.5};
    for (int i = 0; i < 5; i++) {
        add_shared_run(&g, false, 300 * wobble[i], 300 * wobble[4 - i], 1);
        add_shared_run(&g, true, 300 * wobble[4 - i], 300 * wobble[i], slow[i]);
    }
    assert_int_equal(rp_regress_compute(&g), 0);
    assert_int_equal(g.found_count, 0);
    rp_regress_free(&g);
}

static void test_a_method_that_is_its_runs_in_ms(void **state)
{
    (void)state;
    rp_regress g;
    rp_regress_init(&g, 10);
    for (int i = 0; i < 5; i++) {
        add_run(&g, false, 2000 * wobble[i], 0);
        add_run(&g, true, 2600 * wobble[4 - i], 0);
    }
    assert_int_equal(rp_regress_compute(&g), 0);
    assert_int_equal(g.found_count, 1);
    assert_string_equal(rp_strtab_get(&g.names, g.found[0].method, NULL), "Object#a (app.rb)");
    assert_true(g.found[0].in_ms);
    assert_true(fabs(g.found[0].growth_pct - 30) < 2);
    rp_regress_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_tail),
        cmocka_unit_test(test_normal_tail_near_exact),
        cmocka_unit_test(test_one_method_thirty_percent_slower),
        cmocka_unit_test(test_same_runs_name_none),
        cmocka_unit_test(test_a_few_samples_apart_name_none),
        cmocka_unit_test(test_one_run_each_names_none_and_says_so),
        cmocka_unit_test(test_the_caller_that_got_slower_is_named),
        cmocka_unit_test(test_a_slower_machine_names_none),
        cmocka_unit_test(test_a_method_that_is_its_runs_in_ms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
