/*
 * Unit tests for agent/remote_command: the commands of rperf attach and
 * rperf ctl, well-formed and not.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../agent/base/config.h"
#include "../../agent/control/remote_command.h"

/* Parses `text` (copied: the parser cuts it); the answer and why[]. */
static bool parse(const char *text, rp_remote_request *r, char *why)
{
    static char buf[1024];
    snprintf(buf, sizeof(buf), "%s", text);
    why[0] = '\0';
    return rp_remote_parse(buf, r, why, 256);
}

static void test_start(void **state)
{
    (void)state;
    rp_remote_request r;
    char why[256];
    assert_true(parse("start\ndir=/tmp/s x\nmode=wall\nfrequency=250\nalloc=64\nreply=/tmp/s x/r\nexpires=99", &r, why));
    assert_string_equal(r.verb, "start");
    assert_string_equal(r.dir, "/tmp/s x"); /* a value runs to its line's end */
    assert_string_equal(r.mode, "wall");
    assert_int_equal(r.frequency, 250);
    assert_int_equal(r.alloc, 64);
    assert_string_equal(r.reply, "/tmp/s x/r");
    assert_int_equal(r.expires_ns, 99);
    assert_true(parse("start\ndir=/d\nmode=cpu\nwatch=4242\nlimit_s=60\nreply=/r", &r, why));
    assert_int_equal(r.watch, 4242);
    assert_int_equal(r.limit_s, 60);
    assert_true(parse("start\ndir=/d\nmode=cpu\nreply=/r", &r, why));
    assert_int_equal(r.watch, 0);
    assert_int_equal(r.limit_s, 0);
    assert_int_equal(r.frequency, RP_FREQUENCY_DEFAULT);
    assert_int_equal(r.alloc, 0);
    assert_int_equal(r.expires_ns, 0);
}

static void test_other_verbs(void **state)
{
    (void)state;
    rp_remote_request r;
    char why[256];
    assert_true(parse("stop\nreply=/r", &r, why));
    assert_string_equal(r.verb, "stop");
    assert_true(parse("status\nreply=/r\nexpires=5", &r, why));
    assert_string_equal(r.verb, "status");
    assert_true(parse("snapshot\ndir=/d\nreply=/r", &r, why));
    assert_string_equal(r.dir, "/d");
}

/* Each malformed command is refused with why[], and its reply file is
 * still known so that the refusal reaches rperf. */
static void test_malformed(void **state)
{
    (void)state;
    static const struct {
        const char *text, *why;
    } cases[] = {
        {"start\ndir=/d\nmode=fast\nreply=/r", "mode= must be cpu or wall"},
        {"start\ndir=/d\nreply=/r", "mode= must be cpu or wall"},
        {"start\ndir=relative\nmode=cpu\nreply=/r", "no dir="},
        {"start\nmode=cpu\nreply=/r", "no dir="},
        {"start\ndir=/d\nmode=cpu\nfrequency=0\nreply=/r", "frequency= must be 1..10000"},
        {"start\ndir=/d\nmode=cpu\nfrequency=10001\nreply=/r", "frequency= must be 1..10000"},
        {"start\ndir=/d\nmode=cpu\nfrequency=12x\nreply=/r", "frequency= must be 1..10000"},
        {"start\ndir=/d\nmode=cpu\nalloc=-1\nreply=/r", "alloc= must be"},
        {"start\ndir=/d\nmode=cpu\nwatch=me\nreply=/r", "watch= must be a process id"},
        {"start\ndir=/d\nmode=cpu\nlimit_s=-5\nreply=/r", "limit_s= must be"},
        {"snapshot\nreply=/r", "snapshot: no dir="},
        {"stop\nreply=/r\nexpires=soon", "malformed expires="},
        {"reboot\nreply=/r", "unknown command 'reboot'"},
        {"\nreply=/r", "unknown command ''"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        rp_remote_request r;
        char why[256];
        assert_false(parse(cases[i].text, &r, why));
        if (!strstr(why, cases[i].why))
            fail_msg("'%s': why is '%s', expected '%s'", cases[i].text, why, cases[i].why);
        assert_non_null(r.reply);
        assert_string_equal(r.reply, "/r");
    }
}

static void test_no_reply(void **state)
{
    (void)state;
    rp_remote_request r;
    char why[256];
    assert_false(parse("status", &r, why));
    assert_null(r.reply);
    assert_false(parse("status\nreply=relative", &r, why));
    assert_null(r.reply);
    assert_false(parse("", &r, why));
    assert_null(r.reply);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start),
        cmocka_unit_test(test_other_verbs),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_no_reply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
