/*
 * Unit tests for one method's callers and callees (profile/encode/
 * sandwich.h): a method called from two places shows both callers with
 * their shares, its callees with their self time, recursion counted once,
 * and a name that fits no method or several is said.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "../../profile/encode/sandwich.h"
#include "helpers.h"

/* work() called by a (30 ms) and b (10 ms), calling leaf (20 ms of it);
 * a recursive work -> work -> leaf (5 ms) counted once. */
static void make_profile(rp_profile *p)
{
    assert_int_equal(rp_profile_init(p, true), 0);
    add_sample(p, 10000000, 1, 0, "app.rb|Object#work", "app.rb|Object#a", "app.rb|<main>", NULL);
    add_sample(p, 20000000, 1, 0, "app.rb|Object#leaf", "app.rb|Object#work", "app.rb|Object#a", "app.rb|<main>", NULL);
    add_sample(p, 10000000, 1, 0, "app.rb|Object#work", "app.rb|Object#b", "app.rb|<main>", NULL);
    add_sample(p, 5000000, 1, 0, "app.rb|Object#leaf", "app.rb|Object#work", "app.rb|Object#work", "app.rb|Object#b",
               "app.rb|<main>", NULL);
    add_sample(p, 7000000, 1, 0, "app.rb|Object#other", "app.rb|<main>", NULL);
}

static char *render(const rp_profile *p, const char *method, bool callers, bool callees, int *rc)
{
    char *text = NULL;
    CAPTURE_OUTPUT(text, out, *rc = rp_sandwich_write(p, out, method, callers, callees));
    return text;
}

static void test_two_callers_with_their_shares(void **state)
{
    (void)state;
    rp_profile p;
    make_profile(&p);
    int rc;
    char *text = render(&p, "Object#work", true, false, &rc);
    assert_int_equal(rc, 0);
    /* 45 ms through work: 30 from a (66.7%), 15 from b (33.3%) */
    assert_non_null(strstr(text, "45.0  100.0%  Object#work (app.rb)"));
    assert_non_null(strstr(text, "30.0   66.7%    Object#a (app.rb)"));
    assert_non_null(strstr(text, "15.0   33.3%    Object#b (app.rb)"));
    assert_true(strstr(text, "Object#a") < strstr(text, "Object#b")); /* heaviest first */
    free(text);
    rp_profile_free(&p);
}

static void test_callees_with_self_recursion_once(void **state)
{
    (void)state;
    rp_profile p;
    make_profile(&p);
    int rc;
    char *text = render(&p, "work (app", false, true, &rc);
    assert_int_equal(rc, 0);
    /* work's own 20 ms; leaf 25 ms under it (the recursive call's 5 ms
     * through the inner work, counted once from the outermost) */
    assert_non_null(strstr(text, "45.0  100.0%         20.0  Object#work (app.rb)"));
    assert_non_null(strstr(text, "20.0   44.4%         20.0    Object#leaf (app.rb)"));
    assert_non_null(strstr(text, "5.0   11.1%                 Object#work (app.rb)"));
    assert_non_null(strstr(text, "5.0   11.1%          5.0      Object#leaf (app.rb)"));
    free(text);
    rp_profile_free(&p);
}

static void test_unknown_or_ambiguous_name(void **state)
{
    (void)state;
    rp_profile p;
    make_profile(&p);
    int rc;
    free(render(&p, "Object#nothing", true, true, &rc));
    assert_int_equal(rc, 1);
    free(render(&p, "Object#", true, true, &rc)); /* a, b, work, leaf, other */
    assert_int_equal(rc, 1);
    rp_profile_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_callers_with_their_shares),
        cmocka_unit_test(test_callees_with_self_recursion_once),
        cmocka_unit_test(test_unknown_or_ambiguous_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
