/*
 * Unit tests for the memory measures of a profile (profile/measure.h):
 * allocation and retained samples survive the file round trip (a retained
 * sample's bytes beside its objects), merging, label filters and pprof;
 * selecting a measure shows it to every encoder and back; bad values are
 * named.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>

#include "../../profile/encode/pprof.h"
#include "../../profile/encode/report.h"
#include "../../profile/filter.h"
#include "../../profile/load.h"
#include "../../profile/merge.h"
#include "../../profile/profile_read.h"
#include "../../profile/profile_write.h"
#include "../../profile/schema.h"
#include "helpers.h"

RP_TEST_TMPDIR("rperf-test-memory")

/* 2 ms of time; 300 strings from make_strings, 100 arrays from
 * make_arrays (rate 100: three and one samples); 20 strings alive of
 * 40 bytes each. */
static void build(rp_profile *p)
{
    assert_int_equal(rp_profile_init(p, true), 0);
    p->meta.alloc_rate = 100;
    p->meta.alloc_unfollowed = 7;
    uint32_t string = label_set1(p, RP_LABEL_CLASS, "String");
    uint32_t array = label_set1(p, RP_LABEL_CLASS, "Array");
    add_sample(p, 2000000, 1, 0, "a.rb|Object#burn", "a.rb|<main>", NULL);
    add_measure_sample(p, RP_MEASURE_ALLOC_OBJECTS, 300, 1, string, "a.rb|Object#make_strings", "a.rb|<main>", NULL);
    add_measure_sample(p, RP_MEASURE_ALLOC_OBJECTS, 100, 1, array, "a.rb|Object#make_arrays", "a.rb|<main>", NULL);
    add_measure_sample(p, RP_MEASURE_RETAINED_OBJECTS, 20, 1, string, "a.rb|Object#make_strings", "a.rb|<main>", NULL);
    add_measure_sample(p, RP_MEASURE_RETAINED_BYTES, 800, 1, string, "a.rb|Object#make_strings", "a.rb|<main>", NULL);
}

static int64_t total(rp_profile *p, rp_measure m)
{
    return rp_sample_table_total(rp_profile_table(p, m));
}

static void expect_build(rp_profile *p, int64_t times)
{
    assert_int_equal(total(p, RP_MEASURE_TIME), 2000000 * times);
    assert_int_equal(total(p, RP_MEASURE_ALLOC_OBJECTS), 400 * times);
    assert_int_equal(total(p, RP_MEASURE_RETAINED_OBJECTS), 20 * times);
    assert_int_equal(total(p, RP_MEASURE_RETAINED_BYTES), 800 * times);
    assert_int_equal(rp_profile_table(p, RP_MEASURE_RETAINED_OBJECTS)->count,
                     rp_profile_table(p, RP_MEASURE_RETAINED_BYTES)->count);
    assert_true(rp_profile_has_memory(p));
}

static void test_round_trip(void **state)
{
    (void)state;
    rp_profile w, r;
    char err[RP_READ_ERROR_MAX];
    build(&w);
    const char *path = tmp_path("memory.json.gz");
    assert_int_equal(rp_profile_write_file(&w, path, RP_GZIP_DEFAULT), 0);
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "zcat '%s' | grep -q '\"retained_samples\":\\[\\[\\[\\[\"a.rb\",\"Object#make_strings\"\\],\\[\"a.rb\",\"<main>\"\\]\\],20,1,1,800\\]\\]'", path);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(rp_profile_init(&r, true), 0);
    assert_int_equal(rp_profile_read_file(&r, path, err), 0);
    assert_int_equal(r.meta.alloc_rate, 100);
    assert_int_equal(r.meta.alloc_unfollowed, 7);
    expect_build(&r, 1);
    rp_profile_free(&w);
    rp_profile_free(&r);
}

static void expect_error(const char *json, const char *expect)
{
    expect_read_error_at(tmp_path("bad.json"), json, expect);
}

static void test_bad_memory_samples_are_named(void **state)
{
    (void)state;
    expect_error("{\"aggregated_samples\":[],\"alloc_samples\":{}}", "\"alloc_samples\" must be an array");
    expect_error("{\"aggregated_samples\":[],\"retained_samples\":[[[[\"a\",\"b\"]],1,1,0,-5]]}",
                 "retained sample 0: bytes must be a non-negative integer");
    expect_error("{\"aggregated_samples\":[],\"alloc_samples\":[[[[\"a\",\"b\"]],-1]]}",
                 "sample 0: weight must be a non-negative integer");
}

static void test_merge_sums_every_measure(void **state)
{
    (void)state;
    rp_profile a, b, merged;
    char err[RP_MERGE_ERROR_MAX];
    build(&a);
    build(&b);
    b.meta.alloc_rate = 50;
    assert_int_equal(rp_profile_init(&merged, true), 0);
    assert_int_equal(rp_merge_into(&merged, &a, 0, true, err), 0);
    assert_int_equal(rp_merge_into(&merged, &b, 1, true, err), 0);
    expect_build(&merged, 2);
    assert_int_equal(merged.meta.alloc_rate, 100);
    assert_int_equal(merged.meta.alloc_unfollowed, 14);
    rp_profile_free(&a);
    rp_profile_free(&b);
    rp_profile_free(&merged);
}

static void test_filters_apply_to_every_measure(void **state)
{
    (void)state;
    rp_profile p;
    rp_tag_filters f = {0};
    char why[160];
    build(&p);
    assert_int_equal(rp_tag_filters_add(&f, "%class=^Array$", false, why, sizeof(why)), 0);
    assert_int_equal(rp_filter_apply(&p, &f), 0);
    assert_int_equal(total(&p, RP_MEASURE_ALLOC_OBJECTS), 100);
    assert_int_equal(total(&p, RP_MEASURE_RETAINED_OBJECTS), 0);
    assert_int_equal(total(&p, RP_MEASURE_RETAINED_BYTES), 0);
    assert_int_equal(total(&p, RP_MEASURE_TIME), 0); /* time carries no class */
    rp_tag_filters_free(&f);
    rp_profile_free(&p);
}

static void test_selection_swaps_and_back(void **state)
{
    (void)state;
    rp_profile p;
    build(&p);
    rp_profile_select(&p, RP_MEASURE_ALLOC_OBJECTS);
    assert_int_equal(rp_sample_table_total(&p.samples), 400);
    assert_int_equal(total(&p, RP_MEASURE_TIME), 2000000);
    rp_profile_select(&p, RP_MEASURE_RETAINED_BYTES);
    assert_int_equal(rp_sample_table_total(&p.samples), 800);
    expect_build(&p, 1);
    rp_profile_select(&p, RP_MEASURE_TIME);
    assert_int_equal(rp_sample_table_total(&p.samples), 2000000);
    assert_int_equal(p.measure, RP_MEASURE_TIME);
    rp_profile_free(&p);
}

static void test_measure_names(void **state)
{
    (void)state;
    assert_int_equal(rp_measure_parse("time"), RP_MEASURE_TIME);
    assert_int_equal(rp_measure_parse("alloc"), RP_MEASURE_ALLOC_OBJECTS);
    assert_int_equal(rp_measure_parse("alloc_objects"), RP_MEASURE_ALLOC_OBJECTS);
    assert_int_equal(rp_measure_parse("inuse_objects"), RP_MEASURE_RETAINED_OBJECTS);
    assert_int_equal(rp_measure_parse("retained-bytes"), RP_MEASURE_RETAINED_BYTES);
    assert_int_equal(rp_measure_parse("inuse_space"), RP_MEASURE_RETAINED_BYTES);
    assert_int_equal(rp_measure_parse("bytes"), -1);
    char buf[RP_MEASURE_TEXT_MAX];
    assert_string_equal(rp_measure_format(RP_MEASURE_TIME, 1234500000, buf), "1,234.5");
    assert_string_equal(rp_measure_format(RP_MEASURE_ALLOC_OBJECTS, 1234567, buf), "1,234,567");
}

/* The text report of a selected memory measure: its own total and units. */
static void test_report_of_a_memory_measure(void **state)
{
    (void)state;
    rp_profile p;
    build(&p);
    rp_profile_select(&p, RP_MEASURE_ALLOC_OBJECTS);
    char *text = NULL;
    size_t len;
    FILE *fp = open_memstream(&text, &len);
    rp_out *out = rp_out_stream(fp, true);
    assert_int_equal(rp_report_write(&p, out, 10, true), 0);
    assert_int_equal(rp_out_close(out), 0);
    if (!strstr(text, "Total: 400 allocated objects (1 in 100 allocations sampled)\n") ||
        !strstr(text, "             300     75.0%  Object#make_strings (a.rb)\n"))
        fail_msg("report:\n%s", text);
    free(text);
    rp_profile_free(&p);
}

/* pprof: a value per measure, read back into the same tables. */
static void test_pprof_round_trip(void **state)
{
    (void)state;
    rp_profile w, r;
    char err[RP_READ_ERROR_MAX];
    build(&w);
    rp_profile_select(&w, RP_MEASURE_ALLOC_OBJECTS); /* default_sample_type: alloc_objects */
    char *bytes = NULL;
    size_t len;
    FILE *fp = open_memstream(&bytes, &len);
    rp_out *out = rp_out_stream(fp, true);
    rp_encode_opts o = RP_ENCODE_OPTS_DEFAULT;
    assert_int_equal(rp_pprof_write(&w, out, &o), 0);
    assert_int_equal(rp_out_close(out), 0);
    assert_non_null(memmem(bytes, len, "alloc_objects", 13));
    assert_non_null(memmem(bytes, len, "inuse_space", 11));
    const char *path = tmp_path("memory.pb");
    write_file(path, bytes, len, false);
    assert_int_equal(rp_profile_init(&r, true), 0);
    assert_int_equal(rp_profile_read_file(&r, path, err), 0);
    assert_int_equal(r.meta.alloc_rate, 100);
    expect_build(&r, 1);
    free(bytes);
    rp_profile_free(&w);
    rp_profile_free(&r);
}

/* Part `n` (1..3) of process 42, which ran from 1 s for 3 s: 100 objects
 * allocated a part; 10 * n strings alive when the part was written; its
 * counters as the process had them then, peak memory highest in part 2. */
static void write_part(const char *name, int n)
{
    rp_profile p;
    build(&p);
    rp_sample_table_free(rp_profile_table(&p, RP_MEASURE_RETAINED_OBJECTS));
    rp_sample_table_free(rp_profile_table(&p, RP_MEASURE_RETAINED_BYTES));
    rp_sample_table_init(rp_profile_table(&p, RP_MEASURE_RETAINED_OBJECTS), true);
    rp_sample_table_init(rp_profile_table(&p, RP_MEASURE_RETAINED_BYTES), true);
    uint32_t string = label_set1(&p, RP_LABEL_CLASS, "String");
    add_measure_sample(&p, RP_MEASURE_RETAINED_OBJECTS, 10 * n, 1, string, "a.rb|Object#keep", "a.rb|<main>", NULL);
    add_measure_sample(&p, RP_MEASURE_RETAINED_BYTES, 400 * n, 1, string, "a.rb|Object#keep", "a.rb|<main>", NULL);
    p.meta.pid = 42;
    p.meta.part = n;
    p.meta.process_count = 1;
    p.meta.start_time_ns = n * 1000000000LL;
    p.meta.duration_ns = 1000000000LL;
    p.meta.has_gc = p.meta.has_os = true;
    p.meta.gc = (rp_gc_stats){.count = 10 * n, .minor_count = 9 * n, .major_count = n,
                              .time_ns = 5000000 * n, .allocated_objects = 1000 * n,
                              .freed_objects = 900 * n};
    p.meta.os = (rp_os_stats){.maxrss_kb = n == 2 ? 9000 : 5000 + n, .page_faults_minor = 100 * n,
                              .ctx_voluntary = 7 * n};
    assert_int_equal(rp_profile_write_file(&p, tmp_path(name), RP_GZIP_FAST), 0);
    rp_profile_free(&p);
}

static void expect_whole_run(const rp_profile *m)
{
    const rp_meta *meta = &m->meta;
    assert_int_equal(meta->process_count, 1);
    assert_int_equal(meta->gc.count, 30);
    assert_int_equal(meta->gc.minor_count, 27);
    assert_int_equal(meta->gc.time_ns, 15000000);
    assert_int_equal(meta->gc.allocated_objects, 3000);
    assert_int_equal(meta->gc.freed_objects, 2700);
    assert_int_equal(meta->os.maxrss_kb, 9000);
    assert_int_equal(meta->os.page_faults_minor, 300);
    assert_int_equal(meta->os.ctx_voluntary, 21);
    assert_int_equal(meta->start_time_ns, 1000000000LL);
    assert_int_equal(meta->duration_ns, 3000000000LL);
    assert_int_equal(rp_sample_table_total(rp_profile_table_const(m, RP_MEASURE_ALLOC_OBJECTS)), 3 * 400);
    assert_int_equal(rp_sample_table_total(rp_profile_table_const(m, RP_MEASURE_RETAINED_OBJECTS)), 30);
    assert_int_equal(rp_sample_table_total(rp_profile_table_const(m, RP_MEASURE_RETAINED_BYTES)), 1200);
}

/* A process recorded in parts (RPERF_INTERVAL) is one run: its counters
 * those of its last part, its peak memory the highest, its retained
 * objects those alive at the end — whatever order the files come in. */
static void test_parts_are_one_run(void **state)
{
    (void)state;
    static const char *const orders[][3] = {
        {"parts/p1.json.gz", "parts/p2.json.gz", "parts/p3.json.gz"},
        {"parts/p3.json.gz", "parts/p1.json.gz", "parts/p2.json.gz"},
        {"parts/p2.json.gz", "parts/p3.json.gz", "parts/p1.json.gz"},
    };
    char dir[256];
    snprintf(dir, sizeof(dir), "%s", tmp_path("parts"));
    assert_int_equal(mkdir(dir, 0700), 0);
    for (size_t o = 0; o < sizeof(orders) / sizeof(orders[0]); o++) {
        for (int n = 1; n <= 3; n++)
            write_part(orders[o][n - 1], n);
        for (int slots = 0; slots < 2; slots++) {
            rp_profile m;
            rp_load_spec spec = {.keep_lines = true, .time_slots = slots};
            char *path = dir;
            assert_int_equal(rp_load_paths(&path, 1, &spec, &m), 0);
            expect_whole_run(&m);
            rp_profile_free(&m);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_bad_memory_samples_are_named),
        cmocka_unit_test(test_merge_sums_every_measure),
        cmocka_unit_test(test_filters_apply_to_every_measure),
        cmocka_unit_test(test_selection_swaps_and_back),
        cmocka_unit_test(test_measure_names),
        cmocka_unit_test(test_report_of_a_memory_measure),
        cmocka_unit_test(test_parts_are_one_run),
        cmocka_unit_test(test_pprof_round_trip),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
