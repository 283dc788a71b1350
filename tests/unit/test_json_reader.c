/*
 * Unit tests for common/json_reader: tokens and values checked against an
 * independent parser (jansson) on valid documents, and every kind of
 * malformed input rejected with a line number.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "../../common/json_reader.h"

/* Walks our tokens alongside jansson's tree; fails at the first difference. */
static void expect_same(rp_json_reader *r, rp_jtok tok, json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        assert_int_equal(tok, RP_JT_BEGIN_OBJECT);
        size_t n = 0;
        while ((tok = rp_jr_next(r)) == RP_JT_KEY) {
            char key[256];
            assert_true(r->str_len < sizeof(key));
            memcpy(key, r->str, r->str_len);
            key[r->str_len] = '\0';
            json_t *member = json_object_get(v, key);
            assert_non_null(member);
            expect_same(r, rp_jr_next(r), member);
            n++;
        }
        assert_int_equal(tok, RP_JT_END_OBJECT);
        assert_int_equal(n, json_object_size(v));
        break;
    }
    case JSON_ARRAY: {
        assert_int_equal(tok, RP_JT_BEGIN_ARRAY);
        size_t n = 0;
        while ((tok = rp_jr_next(r)) != RP_JT_END_ARRAY) {
            assert_true(n < json_array_size(v));
            expect_same(r, tok, json_array_get(v, n++));
        }
        assert_int_equal(n, json_array_size(v));
        break;
    }
    case JSON_STRING:
        assert_int_equal(tok, RP_JT_STRING);
        assert_int_equal(r->str_len, json_string_length(v));
        assert_memory_equal(r->str, json_string_value(v), r->str_len);
        break;
    case JSON_INTEGER: {
        int64_t i;
        assert_int_equal(tok, RP_JT_NUMBER);
        assert_true(rp_jr_int(r, &i));
        assert_int_equal(i, json_integer_value(v));
        break;
    }
    case JSON_REAL:
        assert_int_equal(tok, RP_JT_NUMBER);
        assert_true(fabs(rp_jr_double(r) - json_real_value(v)) <= 1e-12 * fabs(json_real_value(v)));
        break;
    case JSON_TRUE: assert_int_equal(tok, RP_JT_TRUE); break;
    case JSON_FALSE: assert_int_equal(tok, RP_JT_FALSE); break;
    case JSON_NULL: assert_int_equal(tok, RP_JT_NULL); break;
    }
}

static void check_document(const char *doc)
{
    json_error_t jerr;
    json_t *v = json_loads(doc, JSON_ALLOW_NUL, &jerr);
    if (!v)
        fail_msg("jansson rejects the test document %s: %s", doc, jerr.text);
    rp_json_reader r = {0};
    rp_jr_init(&r, doc, strlen(doc));
    expect_same(&r, rp_jr_next(&r), v);
    assert_int_equal(rp_jr_next(&r), RP_JT_END);
    rp_jr_free(&r);
    json_decref(v);
}

static void test_agrees_with_jansson(void **state)
{
    (void)state;
    check_document("{}");
    check_document("[]");
    check_document(" { \"a\" : [ 1 , -2 , 0 , 3.5 , -0.25e2 , 1E+3 ] , \"b\" : { } } \n");
    check_document("{\"s\":\"plain\",\"e\":\"q\\\"b\\\\s\\/n\\nt\\tr\\rb\\bf\\f\"}");
    check_document("{\"u\":\"\\u00e9\\u6f22\\ud83d\\ude00\\u0000x\"}");
    check_document("{\"utf8\":\"\xc3\xa9\xe6\xbc\xa2\xf0\x9f\x98\x80\"}");
    check_document("[true,false,null,[[[]]],{\"k\":{\"k\":{}}}]");
    check_document("{\"big\":9223372036854775807,\"small\":-9223372036854775808}");
    check_document("{\"aggregated_samples\":[[[[\"a.rb\",\"A#b\"],[\"<C method>\",\"Integer#times\"]],12345,1,0]],"
                   "\"label_sets\":[{},{\"%GVL\":\"blocked\"}]}");
}

static void expect_rejected(const char *doc, const char *message)
{
    rp_json_reader r = {0};
    rp_jr_init(&r, doc, strlen(doc));
    rp_jtok tok;
    do
        tok = rp_jr_next(&r);
    while (tok != RP_JT_ERROR && tok != RP_JT_END);
    if (tok != RP_JT_ERROR)
        fail_msg("accepted: %s", doc);
    char buf[128];
    rp_jr_error(&r, buf, sizeof(buf));
    if (!strstr(buf, message))
        fail_msg("for %s: \"%s\" does not say \"%s\"", doc, buf, message);
    rp_jr_free(&r);
}

static void test_malformed_input(void **state)
{
    (void)state;
    expect_rejected("", "line 1: unexpected end of input");
    expect_rejected("{", "unexpected end of input");
    expect_rejected("{\"a\" 1}", "expected ':'");
    expect_rejected("{\"a\":1,}", "expected a string key");
    expect_rejected("{1:2}", "expected a string key");
    expect_rejected("[1,]", "unexpected character");
    expect_rejected("[1 2]", "expected ',' or ']'");
    expect_rejected("[1}", "expected ',' or ']'");
    expect_rejected("{\"a\":1]", "expected ',' or '}'");
    expect_rejected("[01]", "expected ',' or ']'");
    expect_rejected("[1.]", "invalid number");
    expect_rejected("[-]", "invalid number");
    expect_rejected("[1e]", "invalid number");
    expect_rejected("[tru]", "invalid literal");
    expect_rejected("[\"abc]", "unterminated string");
    expect_rejected("[\"a\\x\"]", "invalid escape");
    expect_rejected("[\"a\\u12\"]", "invalid escape");
    expect_rejected("[\"a\nb\"]", "control character");
    expect_rejected("{} {}", "unexpected data after the document");
    expect_rejected("\n\n[\n@]", "line 4: unexpected character");
    char deep[200];
    memset(deep, '[', sizeof(deep) - 1);
    deep[sizeof(deep) - 1] = '\0';
    expect_rejected(deep, "maximum nesting depth exceeded");
}

static void test_integers(void **state)
{
    (void)state;
    const char *docs[] = {"[9223372036854775808]", "[1.0]", "[1e3]", "[-9223372036854775809]"};
    for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
        rp_json_reader r = {0};
        int64_t v;
        rp_jr_init(&r, docs[i], strlen(docs[i]));
        assert_int_equal(rp_jr_next(&r), RP_JT_BEGIN_ARRAY);
        assert_int_equal(rp_jr_next(&r), RP_JT_NUMBER);
        assert_false(rp_jr_int(&r, &v)); /* not a 64-bit integer */
        rp_jr_free(&r);
    }
}

/* A string that is not valid UTF-8 reads as the JSON writer writes it:
 * each stray byte becomes U+FFFD, in place or after escapes alike. */
static void test_invalid_utf8_is_repaired(void **state)
{
    (void)state;
    static const struct {
        const char *doc, *expect;
    } cases[] = {
        {"[\"a\xff" "b\"]", "a\xef\xbf\xbd" "b"},
        {"[\"\\n\xc3\"]", "\n\xef\xbf\xbd"},
        {"[\"\xe2\x82\xac ok\"]", "\xe2\x82\xac ok"},
        {"[\"\xed\xa0\x80\"]", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        rp_json_reader r = {0};
        rp_jr_init(&r, cases[i].doc, strlen(cases[i].doc));
        assert_int_equal(rp_jr_next(&r), RP_JT_BEGIN_ARRAY);
        assert_int_equal(rp_jr_next(&r), RP_JT_STRING);
        assert_int_equal(r.str_len, strlen(cases[i].expect));
        assert_memory_equal(r.str, cases[i].expect, r.str_len);
        rp_jr_free(&r);
    }
}

static void test_skip(void **state)
{
    (void)state;
    const char *doc = "{\"skip\":{\"a\":[1,{\"b\":[]}],\"c\":\"}\"},\"keep\":7}";
    rp_json_reader r = {0};
    int64_t v;
    rp_jr_init(&r, doc, strlen(doc));
    assert_int_equal(rp_jr_next(&r), RP_JT_BEGIN_OBJECT);
    assert_int_equal(rp_jr_next(&r), RP_JT_KEY);
    assert_true(rp_jr_skip(&r, rp_jr_next(&r)));
    assert_int_equal(rp_jr_next(&r), RP_JT_KEY);
    assert_int_equal(r.str_len, 4);
    assert_int_equal(rp_jr_next(&r), RP_JT_NUMBER);
    assert_true(rp_jr_int(&r, &v));
    assert_int_equal(v, 7);
    assert_int_equal(rp_jr_next(&r), RP_JT_END_OBJECT);
    assert_int_equal(rp_jr_next(&r), RP_JT_END);
    rp_jr_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agrees_with_jansson),
        cmocka_unit_test(test_malformed_input),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_skip),
        cmocka_unit_test(test_invalid_utf8_is_repaired),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
