/*
 * Unit tests for agent/label_aliases: a value written under its alias,
 * the latest alias winning, strings too long refused, and the bound of
 * the aliases' text (RP_LABEL_ALIASES_BYTES): past it a new alias is
 * refused while the known ones are kept and may still change.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../agent/sampling/label_aliases.h"

static bool alias(const char *from, const char *to)
{
    return rp_label_alias("endpoint", 8, from, strlen(from), to, strlen(to));
}

static const char *alias_of(const char *value)
{
    static char buf[2048];
    size_t len;
    const char *a = rp_label_alias_of("endpoint", 8, value, strlen(value), &len);
    if (!a)
        return NULL;
    snprintf(buf, sizeof(buf), "%.*s", (int)len, a);
    return buf;
}

static void test_alias_and_latest(void **state)
{
    (void)state;
    assert_null(alias_of("GET /p/1"));
    assert_true(alias("GET /p/1", "GET /p/:id"));
    assert_string_equal(alias_of("GET /p/1"), "GET /p/:id");
    assert_true(alias("GET /p/1", "GET /p/:sku"));
    assert_string_equal(alias_of("GET /p/1"), "GET /p/:sku");
    assert_null(alias_of("GET /p/2"));
    static char long_value[RP_LABEL_ALIAS_TEXT_MAX + 2];
    memset(long_value, 'x', sizeof(long_value) - 1);
    assert_false(alias(long_value, "GET /x"));
}

/* Aliases of 1 KB paths to 1 KB routes: at most 8 MB of their text. */
static void test_text_bound(void **state)
{
    (void)state;
    static char from[1001], to[1001];
    memset(from, 'f', 1000);
    memset(to, 't', 1000);
    size_t kept = 0;
    int i = 0;
    for (; i < 10000; i++) {
        snprintf(from, sizeof(from), "%06d", i);
        from[6] = 'f';
        snprintf(to, sizeof(to), "%06d", i);
        to[6] = 't';
        if (!alias(from, to))
            break;
        kept++;
    }
    assert_in_range(kept, RP_LABEL_ALIASES_BYTES / 2100, RP_LABEL_ALIASES_BYTES / 2000);
    /* a known value's alias still changes; the first is still there */
    snprintf(from, sizeof(from), "%06d", 0);
    from[6] = 'f';
    assert_true(alias(from, "GET /changed"));
    assert_string_equal(alias_of(from), "GET /changed");
    snprintf(from, sizeof(from), "%06d", i + 1);
    from[6] = 'f';
    assert_false(alias(from, "GET /new"));
    assert_null(alias_of(from));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alias_and_latest),
        cmocka_unit_test(test_text_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
