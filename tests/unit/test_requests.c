/*
 * Unit tests for requests and jobs in a profile (profile/requests.h):
 * histogram buckets and quantiles within 1%, endpoints and slow spans
 * merged across files, the file round trip, bad values named, and the
 * report's JSON.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <unistd.h>

#include "../../profile/encode/requests_table.h"
#include "../../profile/merge.h"
#include "../../profile/profile_read.h"
#include "../../profile/profile_write.h"
#include "helpers.h"

RP_TEST_TMPDIR("rperf-test-requests")

static void test_quantiles_within_one_percent(void **state)
{
    (void)state;
    rp_endpoint e = {0};
    /* 1..1000 ms, one each: the q-quantile is q * 1000 ms */
    for (int i = 1; i <= 1000; i++) {
        rp_span_split s = {.wall_ns = (int64_t)i * 1000000, .cpu_ns = (int64_t)i * 500000};
        assert_int_equal(rp_endpoint_add(&e, &s, i % 2 ? 200 : 503), 0);
    }
    const double qs[] = {0.5, 0.9, 0.99};
    for (size_t k = 0; k < 3; k++) {
        double got = rp_endpoint_quantile(&e, qs[k]), truth = qs[k] * 1000 * 1e6;
        if (fabs(got - truth) > truth * 0.01)
            fail_msg("q%.2f: %.0f ns, truth %.0f ns", qs[k], got, truth);
    }
    assert_true(rp_endpoint_quantile(&e, 1.0) == 1000 * 1e6); /* the max, exactly */
    assert_int_equal(e.count, 1000);
    assert_int_equal(e.status[1], 500); /* 2xx */
    assert_int_equal(e.status[4], 500); /* 5xx */
    assert_int_equal(rp_hist_bucket(999), 0);
    assert_int_equal(rp_hist_bucket(INT64_MAX), RP_HIST_BUCKETS - 1);
    rp_endpoint_free(&e);
}

/* Endpoint "GET /a": `n` spans of 10 ms, 2 ms of it CPU, 7 ms blocked
 * (and before it 0.25 ms queued); and one slow span of 90 ms, 30 ms of it
 * queued. */
static void build(rp_profile *p, int n)
{
    assert_int_equal(rp_profile_init(p, true), 0);
    add_sample(p, 1000000, 1, 0, "a.rb|Object#work", NULL);
    rp_endpoint *e = rp_requests_endpoint(&p->requests, rp_profile_cstring(p, "GET /a"));
    assert_non_null(e);
    rp_span_split s = {.wall_ns = 10000000, .cpu_ns = 2000000, .blocked_ns = 7000000, .gvl_wait_ns = 500000,
                       .queue_ns = 250000};
    for (int i = 0; i < n; i++)
        assert_int_equal(rp_endpoint_add(e, &s, 200), 0);
    rp_slow_span slow = {.endpoint = e->name, .start_ns = 1700000000000000000, .status = 200, .thread_seq = 3,
                         .split = {.wall_ns = 90000000, .blocked_ns = 58000000, .queue_ns = 30000000},
                         .longest_block_ns = 50000000,
                         .blocked_at = rp_profile_cstring(p, "Kernel#sleep at app.rb:12")};
    assert_int_equal(rp_requests_add_slow(&p->requests, &slow), 0);
    rp_slow_span never = {.endpoint = e->name, .split = {.wall_ns = 80000000}, .blocked_at = RP_IDX_NONE};
    assert_int_equal(rp_requests_add_slow(&p->requests, &never), 0);
}

static void test_round_trip_and_merge(void **state)
{
    (void)state;
    rp_profile a, b, merged;
    char err[RP_READ_ERROR_MAX], merge_err[RP_MERGE_ERROR_MAX];
    build(&a, 30);
    const char *path = tmp_path("req.json.gz");
    assert_int_equal(rp_profile_write_file(&a, path, RP_GZIP_DEFAULT), 0);
    assert_int_equal(rp_profile_init(&b, true), 0);
    assert_int_equal(rp_profile_read_file(&b, path, err), 0);
    assert_int_equal(b.requests.count, 1);
    const rp_endpoint *e = &b.requests.endpoints[0];
    assert_string_equal(rp_profile_str(&b, e->name), "GET /a");
    assert_int_equal(e->count, 30);
    assert_int_equal(e->sum.blocked_ns, 30 * 7000000);
    assert_int_equal(e->sum.queue_ns, 30 * 250000);
    assert_true(rp_endpoint_quantile(e, 0.5) == rp_endpoint_quantile(&a.requests.endpoints[0], 0.5));
    assert_int_equal(b.requests.slow_count, 2);
    assert_int_equal(b.requests.slow[0].thread_seq, 3);
    assert_int_equal(b.requests.slow[0].split.blocked_ns, 58000000);
    assert_int_equal(b.requests.slow[0].split.queue_ns, 30000000);
    assert_int_equal(b.requests.slow[0].longest_block_ns, 50000000);
    assert_string_equal(rp_profile_str(&b, b.requests.slow[0].blocked_at), "Kernel#sleep at app.rb:12");
    assert_int_equal(b.requests.slow[1].blocked_at, RP_IDX_NONE); /* none written, none read */

    assert_int_equal(rp_profile_init(&merged, true), 0);
    assert_int_equal(rp_merge_into(&merged, &a, 0, true, merge_err), 0);
    assert_int_equal(rp_merge_into(&merged, &b, 1, true, merge_err), 0);
    assert_int_equal(merged.requests.count, 1);
    assert_int_equal(merged.requests.endpoints[0].count, 60);
    assert_int_equal(merged.requests.endpoints[0].sum.queue_ns, 60 * 250000);
    assert_int_equal(rp_hist_count(&merged.requests.endpoints[0], rp_hist_bucket(10000000)), 60);
    assert_int_equal(merged.requests.slow_count, 4);
    assert_string_equal(rp_profile_str(&merged, merged.requests.slow[2].endpoint), "GET /a");
    assert_string_equal(rp_profile_str(&merged, merged.requests.slow[2].blocked_at), "Kernel#sleep at app.rb:12");
    assert_int_equal(merged.requests.slow[3].blocked_at, RP_IDX_NONE);
    rp_profile_free(&a);
    rp_profile_free(&b);
    rp_profile_free(&merged);
}

static void expect_error(const char *json, const char *expect)
{
    expect_read_error_at(tmp_path("bad.json"), json, expect);
}

/* A slow span's %span value names its process: two workers' span 2 are
 * told apart in a merged session. */
static void test_span_labels_name_the_process(void **state)
{
    (void)state;
    char buf[RP_SPAN_LABEL_MAX];
    assert_int_equal(rp_span_label((int64_t)4174 << 32 | 2, buf), 6);
    assert_string_equal(buf, "4174.2");
    rp_span_label((int64_t)4194304 << 32 | 0xffffffffu, buf);
    assert_string_equal(buf, "4194304.4294967295");
    rp_span_label(17, buf); /* a file of an older agent: a number alone */
    assert_string_equal(buf, "17");
}

static void test_bad_requests_are_named(void **state)
{
    (void)state;
    expect_error("{\"aggregated_samples\":[],\"requests\":[]}", "\"requests\" must be an object");
    expect_error("{\"aggregated_samples\":[],\"requests\":{\"endpoints\":[{\"count\":1}]}}",
                 "an entry has no \"name\" string");
    expect_error("{\"aggregated_samples\":[],\"requests\":{\"endpoints\":[{\"name\":\"x\",\"histogram\":[[5000,1]]}]}}",
                 "buckets from 0 to 1099");
    expect_error("{\"aggregated_samples\":[],\"requests\":{\"endpoints\":[{\"name\":\"x\",\"count\":-1}]}}",
                 "\"count\" must be a non-negative integer");
}

static void test_json_report(void **state)
{
    (void)state;
    rp_profile p;
    build(&p, 10);
    char *text = NULL;
    size_t len;
    FILE *fp = open_memstream(&text, &len);
    rp_out *out = rp_out_stream(fp, true);
    rp_requests_opts o = {.json = true};
    assert_int_equal(rp_requests_write(&p, out, &o), 0);
    assert_int_equal(rp_out_close(out), 0);
    if (!strstr(text, "\"name\":\"GET /a\",\"count\":10,") || !strstr(text, "\"blocked_ms\":70,") ||
        !strstr(text, "\"queue_ms\":2.5,") || !strstr(text, "\"other_ms\":2.5,") ||
        !strstr(text, "\"status\":{\"2xx\":10}"))
        fail_msg("json: %s", text);
    free(text);
    rp_profile_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantiles_within_one_percent),
        cmocka_unit_test(test_round_trip_and_merge),
        cmocka_unit_test(test_span_labels_name_the_process),
        cmocka_unit_test(test_bad_requests_are_named),
        cmocka_unit_test(test_json_report),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
