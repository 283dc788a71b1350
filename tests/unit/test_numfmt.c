/*
 * Unit tests for common/numfmt: the gem's thousands separators and ms.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../common/numfmt.h"

static void test_integers_are_grouped_by_three(void **state)
{
    (void)state;
    char buf[RP_NUMFMT_MAX];
    assert_string_equal(rp_fmt_int(0, buf), "0");
    assert_string_equal(rp_fmt_int(999, buf), "999");
    assert_string_equal(rp_fmt_int(1000, buf), "1,000");
    assert_string_equal(rp_fmt_int(106078, buf), "106,078");
    assert_string_equal(rp_fmt_int(1234567, buf), "1,234,567");
    assert_string_equal(rp_fmt_int(-1234567, buf), "-1,234,567");
    assert_string_equal(rp_fmt_int(INT64_MAX, buf), "9,223,372,036,854,775,807");
    assert_string_equal(rp_fmt_int(INT64_MIN, buf), "-9,223,372,036,854,775,808");
}

static void test_ms_has_one_decimal_and_groups(void **state)
{
    (void)state;
    char buf[RP_NUMFMT_MAX];
    assert_string_equal(rp_fmt_ms(0, buf), "0.0");
    assert_string_equal(rp_fmt_ms(64500000, buf), "64.5");
    assert_string_equal(rp_fmt_ms(2034200000, buf), "2,034.2");
    assert_string_equal(rp_fmt_ms(5609200000, buf), "5,609.2");
    assert_string_equal(rp_fmt_ms(1234567890123, buf), "1,234,567.9");
    assert_string_equal(rp_fmt_ms(49999, buf), "0.0");
    assert_string_equal(rp_fmt_ms(50001, buf), "0.1");
}

static void test_round_groups(void **state)
{
    (void)state;
    char buf[RP_NUMFMT_MAX];
    assert_string_equal(rp_fmt_round(21.6, buf), "22");
    assert_string_equal(rp_fmt_round(1499.5, buf), "1,500");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integers_are_grouped_by_three),
        cmocka_unit_test(test_ms_has_one_decimal_and_groups),
        cmocka_unit_test(test_round_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
