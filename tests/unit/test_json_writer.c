/*
 * Unit tests for common/json_writer: syntax, escaping, UTF-8 repair.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>

#include "../../common/json_writer.h"
#include "helpers.h"

static void test_nesting_and_commas(void **state)
{
    (void)state;
    char *text = NULL;
    CAPTURE_OUTPUT(text, out, {
        rp_json j;
        rp_json_init(&j, out);
        rp_json_begin_object(&j);
        rp_json_member_int(&j, "a", 1);
        rp_json_key(&j, "list");
        rp_json_begin_array(&j);
        rp_json_int(&j, -5);
        rp_json_begin_array(&j);
        rp_json_end_array(&j);
        rp_json_begin_object(&j);
        rp_json_end_object(&j);
        rp_json_double(&j, 0.25);
        rp_json_end_array(&j);
        rp_json_member_cstring(&j, "s", "x");
        rp_json_end_object(&j);
    });
    assert_string_equal(text, "{\"a\":1,\"list\":[-5,[],{},0.25],\"s\":\"x\"}");
    free(text);
}

static void test_strings_are_escaped(void **state)
{
    (void)state;
    char *text = NULL;
    CAPTURE_OUTPUT(text, out, {
        rp_json j;
        rp_json_init(&j, out);
        rp_json_string(&j, "q\"b\\n\n\t\x01\x1f/", 10);
    });
    assert_string_equal(text, "\"q\\\"b\\\\n\\n\\t\\u0001\\u001f/\"");
    free(text);
}

/* In an HTML page's <script> element, nothing may close the element or
 * open a comment: "</" is written "<\/", any other '<' escaped. */
static void test_html_safe_strings(void **state)
{
    (void)state;
    char *plain = NULL, *safe = NULL;
    for (int html = 0; html < 2; html++) {
        char *text = NULL;
        CAPTURE_OUTPUT(text, out, {
            rp_json j;
            rp_json_init(&j, out);
            j.html_safe = html;
            rp_json_begin_object(&j);
            rp_json_member_cstring(&j, "</script>", "a<b>&c<!--");
            rp_json_end_object(&j);
        });
        *(html ? &safe : &plain) = text;
    }
    assert_string_equal(plain, "{\"</script>\":\"a<b>&c<!--\"}");
    assert_string_equal(safe, "{\"<\\/script>\":\"a\\u003cb>\\u0026c\\u003c!--\"}");
    free(plain);
    free(safe);
}

static void test_utf8_kept_and_invalid_bytes_replaced(void **state)
{
    (void)state;
    char *text = NULL;
    /* valid: é (2 bytes), 漢 (3), 😀 (4); invalid: lone 0xff, truncated 0xe6 0xbc,
     * overlong 0xc0 0xaf, surrogate 0xed 0xa0 0x80, NUL */
    static const char input[] = "\xc3\xa9\xe6\xbc\xa2\xf0\x9f\x98\x80|\xff|\xe6\xbc|\xc0\xaf|\xed\xa0\x80|";
    CAPTURE_OUTPUT(text, out, {
        rp_json j;
        rp_json_init(&j, out);
        rp_json_string(&j, input, sizeof(input) - 1);
        rp_json_string(&j, "a\0b", 3);
    });
    /* an independent parser accepts every byte of it */
    char *wrapped = NULL;
    size_t wrapped_len = 0;
    FILE *w = open_memstream(&wrapped, &wrapped_len);
    fprintf(w, "[%s]", text);
    fclose(w);
    json_error_t jerr;
    json_t *parsed = json_loads(wrapped, JSON_ALLOW_NUL, &jerr);
    if (!parsed)
        fail_msg("jansson rejects the writer's output: %s", jerr.text);
    assert_int_equal(json_string_length(json_array_get(parsed, 1)), 3);
    json_decref(parsed);
    free(wrapped);
    assert_string_equal(text, "\"\xc3\xa9\xe6\xbc\xa2\xf0\x9f\x98\x80|\xef\xbf\xbd|"
                              "\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|"
                              "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|\",\"a\\u0000b\"");
    free(text);
}

static void test_non_finite_doubles_become_zero(void **state)
{
    (void)state;
    char *text = NULL;
    CAPTURE_OUTPUT(text, out, {
        rp_json j;
        rp_json_init(&j, out);
        rp_json_begin_array(&j);
        rp_json_double(&j, 1.0 / 0.0);
        rp_json_double(&j, 0.0 / 0.0);
        rp_json_int(&j, INT64_MIN);
        rp_json_end_array(&j);
    });
    assert_string_equal(text, "[0,0,-9223372036854775808]");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nesting_and_commas),
        cmocka_unit_test(test_strings_are_escaped),
        cmocka_unit_test(test_html_safe_strings),
        cmocka_unit_test(test_utf8_kept_and_invalid_bytes_replaced),
        cmocka_unit_test(test_non_finite_doubles_become_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
