/*
 * Unit tests for reading pprof files (profile/profile_read_pprof.c): what
 * rperf-analyze writes reads back to the same samples, frames, threads and
 * label sets; the rperf gem's shape is read; broken input is refused with
 * one line naming the problem.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../profile/encode/pprof.h"
#include "../../profile/encode/protobuf.h"
#include "../../profile/profile_proto.h"
#include "../../profile/profile_read.h"
#include "helpers.h"

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every sample as one line: frames (label@path:line/start), thread, label
 * set (sorted pairs), weight; the lines sorted and joined. Two profiles
 * with the same dump hold the same samples whatever their ids. */
static char *dump(const rp_profile *p)
{
    char **lines = calloc(p->samples.count + 1, sizeof(char *));
    size_t total = 1;
    for (size_t i = 0; i < p->samples.count; i++) {
        const rp_sample *s = &p->samples.samples[i];
        char *line = NULL;
        size_t len;
        FILE *fp = open_memstream(&line, &len);
        uint32_t depth;
        const uint32_t *frames = rp_stack_table_get(&p->stacks, s->stack, &depth);
        for (uint32_t d = 0; d < depth; d++) {
            const rp_frame *f = &p->frames[frames[d]];
            fprintf(fp, "%s@%s:%u/%u;", rp_profile_str(p, f->label), rp_profile_str(p, f->path), f->line,
                    f->start_line);
        }
        fprintf(fp, "|t%u|", s->thread_seq);
        const rp_label_set *ls = &p->label_sets[s->label_set];
        for (uint32_t k = 0; k < ls->count; k++)
            fprintf(fp, "%s=%s,", rp_profile_str(p, p->labels[ls->first + k].key),
                    rp_profile_str(p, p->labels[ls->first + k].value));
        fprintf(fp, "|%lld", (long long)s->weight);
        fclose(fp);
        lines[i] = line;
        total += len + 1;
    }
    qsort(lines, p->samples.count, sizeof(char *), compare_strings);
    char *out = calloc(total, 1);
    for (size_t i = 0; i < p->samples.count; i++) {
        strcat(out, lines[i]);
        strcat(out, "\n");
        free(lines[i]);
    }
    free(lines);
    return out;
}

static char *to_pprof(const rp_profile *p, size_t *len)
{
    char *bytes = NULL;
    FILE *fp = open_memstream(&bytes, len);
    rp_out *out = rp_out_stream(fp, true);
    rp_encode_opts o = RP_ENCODE_OPTS_DEFAULT;
    assert_int_equal(rp_pprof_write(p, out, &o), 0);
    assert_int_equal(rp_out_close(out), 0);
    return bytes;
}

static void make_profile(rp_profile *p)
{
    assert_int_equal(rp_profile_init(p, true), 0);
    p->meta.mode = RP_MODE_WALL;
    p->meta.frequency = 250;
    p->meta.sampling_count = 40;
    p->meta.trigger_count = 44;
    p->meta.sampling_time_ns = 210000;
    p->meta.worker_cpu_ns = 1760000;
    p->meta.process_count = 2;
    p->meta.start_time_ns = 1700000000123456789;
    p->meta.duration_ns = 2500000000;
    p->meta.ruby_version = rp_profile_cstring(p, "3.4.5");
    rp_label pairs[3] = {{rp_profile_cstring(p, "%GVL"), rp_profile_cstring(p, "blocked")},
                         {rp_profile_cstring(p, "endpoint"), rp_profile_cstring(p, "GET /users/:id")},
                         {rp_profile_cstring(p, "%pid"), rp_profile_cstring(p, "4343")}};
    uint32_t blocked_in_request = rp_profile_label_set(p, pairs, 2);
    uint32_t child = rp_profile_label_set(p, pairs + 2, 1);
    add_sample(p, 3000000, 1, 0, "a.rb|work|7|5", "a.rb|<main>|20|1", NULL);
    add_sample(p, 1000000, 1, 0, "a.rb|work|9|5", "a.rb|<main>|20|1", NULL);
    add_sample(p, 2500000, 2, blocked_in_request, "<C method>|Kernel#sleep", "a.rb|handle|12|11",
               "a.rb|block in <main>|3|3", NULL);
    add_sample(p, 700000, 1, child, "b.rb|child|2|1", "a.rb|<main>|20|1", NULL);
    add_sample(p, 5, 3, 0, "<C method>|Integer#times", NULL);
}

static void test_round_trip(void **state)
{
    (void)state;
    rp_profile p, back;
    make_profile(&p);
    size_t len;
    char *bytes = to_pprof(&p, &len);
    assert_int_equal(rp_profile_init(&back, true), 0);
    char err[RP_READ_ERROR_MAX] = "";
    assert_int_equal(rp_profile_read_buffer(&back, bytes, len, err), 0);
    char *want = dump(&p), *got = dump(&back);
    assert_string_equal(got, want);
    assert_int_equal(back.meta.mode, RP_MODE_WALL);
    assert_int_equal(back.meta.frequency, 250);
    assert_int_equal(back.meta.sampling_count, 40);
    assert_int_equal(back.meta.trigger_count, 44);
    assert_int_equal(back.meta.sampling_time_ns, 210000);
    assert_int_equal(back.meta.worker_cpu_ns, 1760000);
    assert_int_equal(back.meta.process_count, 2);
    assert_int_equal(back.meta.start_time_ns, 1700000000123456789);
    assert_int_equal(back.meta.duration_ns, 2500000000);
    assert_string_equal(rp_profile_str(&back, back.meta.ruby_version), "3.4.5");
    free(want);
    free(got);
    free(bytes);
    rp_profile_free(&back);
    rp_profile_free(&p);
}

/* The rperf gem 0.9's PProf.encode: no system names, no line numbers,
 * one function per location, labels after thread_seq, RUBY_DESCRIPTION in
 * a comment and a doc_url (field 15) this reader does not know. */
static char *gem_pprof(size_t *len)
{
    static const char *const strings[] = {"", "app.rb", "<main>", "Object#work", "<C method>", "Kernel#sleep",
                                          "thread_seq", "request", "r1", "wall", "nanoseconds", "rperf 0.9.0",
                                          "mode: wall", "frequency: 1000Hz",
                                          "ruby: ruby 3.4.5 (2025-07-16 revision 20cda200d3) +PRISM [x86_64-linux]",
                                          "https://ko1.github.io/rperf/docs/help.html"};
    rp_pb doc, sub, label;
    rp_pb_init(&doc);
    rp_pb_init(&sub);
    rp_pb_init(&label);
    rp_pb_uint(&sub, VALUE_TYPE_TYPE, 9);
    rp_pb_uint(&sub, VALUE_TYPE_UNIT, 10);
    rp_pb_bytes(&doc, PROFILE_SAMPLE_TYPE, sub.data, sub.len);
    /* sample 1: work <- <main>, thread 1, request=r1, 3 ms */
    rp_pb_clear(&sub);
    uint32_t locs1[] = {2, 1};
    rp_pb_packed_u32(&sub, SAMPLE_LOCATION_ID, locs1, 2, 0);
    rp_pb_packed_i64(&sub, SAMPLE_VALUE, 3000000);
    rp_pb_uint(&label, LABEL_KEY, 6);
    rp_pb_int(&label, LABEL_NUM, 1);
    rp_pb_bytes(&sub, SAMPLE_LABEL, label.data, label.len);
    rp_pb_clear(&label);
    rp_pb_uint(&label, LABEL_KEY, 7);
    rp_pb_uint(&label, LABEL_STR, 8);
    rp_pb_bytes(&sub, SAMPLE_LABEL, label.data, label.len);
    rp_pb_bytes(&doc, PROFILE_SAMPLE, sub.data, sub.len);
    /* sample 2: sleep <- <main>, thread 2, 1 ms */
    rp_pb_clear(&sub);
    rp_pb_clear(&label);
    uint32_t locs2[] = {3, 1};
    rp_pb_packed_u32(&sub, SAMPLE_LOCATION_ID, locs2, 2, 0);
    rp_pb_packed_i64(&sub, SAMPLE_VALUE, 1000000);
    rp_pb_uint(&label, LABEL_KEY, 6);
    rp_pb_int(&label, LABEL_NUM, 2);
    rp_pb_bytes(&sub, SAMPLE_LABEL, label.data, label.len);
    rp_pb_bytes(&doc, PROFILE_SAMPLE, sub.data, sub.len);
    /* locations and functions 1..3: (app.rb, <main>), (app.rb, work), (<C method>, sleep) */
    const uint64_t fn[3][2] = {{1, 2}, {1, 3}, {4, 5}};
    for (uint64_t id = 1; id <= 3; id++) {
        rp_pb_clear(&sub);
        rp_pb_clear(&label);
        rp_pb_uint(&sub, LOCATION_ID, id);
        rp_pb_uint(&label, LINE_FUNCTION_ID, id);
        rp_pb_bytes(&sub, LOCATION_LINE, label.data, label.len);
        rp_pb_bytes(&doc, PROFILE_LOCATION, sub.data, sub.len);
    }
    for (uint64_t id = 1; id <= 3; id++) {
        rp_pb_clear(&sub);
        rp_pb_uint(&sub, FUNCTION_ID, id);
        rp_pb_uint(&sub, FUNCTION_NAME, fn[id - 1][1]);
        rp_pb_uint(&sub, FUNCTION_FILENAME, fn[id - 1][0]);
        rp_pb_bytes(&doc, PROFILE_FUNCTION, sub.data, sub.len);
    }
    for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
        rp_pb_bytes(&doc, PROFILE_STRING_TABLE, strings[i], strlen(strings[i]));
    rp_pb_int(&doc, PROFILE_TIME_NANOS, 1700000000000000000);
    rp_pb_int(&doc, PROFILE_DURATION_NANOS, 5000000);
    rp_pb_clear(&sub);
    rp_pb_uint(&sub, VALUE_TYPE_TYPE, 9);
    rp_pb_uint(&sub, VALUE_TYPE_UNIT, 10);
    rp_pb_bytes(&doc, PROFILE_PERIOD_TYPE, sub.data, sub.len);
    rp_pb_int(&doc, PROFILE_PERIOD, 1000000);
    for (int c = 11; c <= 14; c++)
        rp_pb_int(&doc, PROFILE_COMMENT, c);
    rp_pb_int(&doc, 15, 15); /* doc_url */
    char *bytes = malloc(doc.len);
    memcpy(bytes, doc.data, doc.len);
    *len = doc.len;
    rp_pb_free(&doc);
    rp_pb_free(&sub);
    rp_pb_free(&label);
    return bytes;
}

static void test_gem_shape(void **state)
{
    (void)state;
    size_t len;
    char *bytes = gem_pprof(&len);
    rp_profile p;
    assert_int_equal(rp_profile_init(&p, true), 0);
    char err[RP_READ_ERROR_MAX] = "";
    assert_int_equal(rp_profile_read_buffer(&p, bytes, len, err), 0);
    char *got = dump(&p);
    assert_string_equal(got, "Kernel#sleep@<C method>:0/0;<main>@app.rb:0/0;|t2||1000000\n"
                             "Object#work@app.rb:0/0;<main>@app.rb:0/0;|t1|request=r1,|3000000\n");
    assert_int_equal(p.meta.mode, RP_MODE_WALL);
    assert_int_equal(p.meta.frequency, 1000);
    assert_int_equal(p.meta.sampling_count, 2);
    assert_int_equal(p.meta.duration_ns, 5000000);
    assert_string_equal(rp_profile_str(&p, p.meta.rperf_version), "0.9.0");
    assert_true(strncmp(rp_profile_str(&p, p.meta.ruby_version), "ruby 3.4.5", 10) == 0);
    free(got);
    free(bytes);
    rp_profile_free(&p);
}

static void expect_refused(const char *bytes, size_t len, const char *needle)
{
    rp_profile p;
    assert_int_equal(rp_profile_init(&p, true), 0);
    char err[RP_READ_ERROR_MAX] = "";
    assert_int_equal(rp_profile_read_buffer(&p, bytes, len, err), -1);
    if (!strstr(err, needle))
        fail_msg("expected a message with \"%s\", got \"%s\"", needle, err);
    assert_null(strchr(err, '\n'));
    rp_profile_free(&p);
}

/* Every cut of a valid file is refused with a message or read as a
 * shorter profile; never a crash (the fuzzer goes further). */
static void test_truncated(void **state)
{
    (void)state;
    size_t len;
    char *bytes = gem_pprof(&len);
    size_t refused = 0;
    for (size_t cut = 1; cut < len; cut++) {
        rp_profile p;
        assert_int_equal(rp_profile_init(&p, true), 0);
        char err[RP_READ_ERROR_MAX] = "";
        if (rp_profile_read_buffer(&p, bytes, cut, err) != 0) {
            assert_true(err[0] != '\0');
            refused++;
        }
        rp_profile_free(&p);
    }
    assert_true(refused > len / 2);
    expect_refused(bytes, 40, "pprof: not a valid protocol buffer at byte");
    free(bytes);
}

/* A document of one sample type, one sample and whatever `extra` adds. */
static char *small_pprof(size_t *len, void (*extra)(rp_pb *doc, rp_pb *sub))
{
    rp_pb doc, sub;
    rp_pb_init(&doc);
    rp_pb_init(&sub);
    rp_pb_uint(&sub, VALUE_TYPE_TYPE, 1);
    rp_pb_uint(&sub, VALUE_TYPE_UNIT, 2);
    rp_pb_bytes(&doc, PROFILE_SAMPLE_TYPE, sub.data, sub.len);
    rp_pb_clear(&sub);
    extra(&doc, &sub);
    const char *strings[] = {"", "cpu", "nanoseconds", "f", "x.rb"};
    for (size_t i = 0; i < 5; i++)
        rp_pb_bytes(&doc, PROFILE_STRING_TABLE, strings[i], strlen(strings[i]));
    char *bytes = malloc(doc.len);
    memcpy(bytes, doc.data, doc.len);
    *len = doc.len;
    rp_pb_free(&doc);
    rp_pb_free(&sub);
    return bytes;
}

static void sample_at_location_7(rp_pb *doc, rp_pb *sub)
{
    uint32_t loc = 7;
    rp_pb_packed_u32(sub, SAMPLE_LOCATION_ID, &loc, 1, 0);
    rp_pb_packed_i64(sub, SAMPLE_VALUE, 10);
    rp_pb_bytes(doc, PROFILE_SAMPLE, sub->data, sub->len);
}

static void location_without_function(rp_pb *doc, rp_pb *sub)
{
    rp_pb line;
    rp_pb_init(&line);
    rp_pb_uint(&line, LINE_FUNCTION_ID, 3);
    rp_pb_uint(sub, LOCATION_ID, 7);
    rp_pb_bytes(sub, LOCATION_LINE, line.data, line.len);
    rp_pb_bytes(doc, PROFILE_LOCATION, sub->data, sub->len);
    rp_pb_clear(sub);
    rp_pb_free(&line);
    sample_at_location_7(doc, sub);
}

static void function_with_bad_name(rp_pb *doc, rp_pb *sub)
{
    rp_pb_uint(sub, FUNCTION_ID, 3);
    rp_pb_uint(sub, FUNCTION_NAME, 99);
    rp_pb_bytes(doc, PROFILE_FUNCTION, sub->data, sub->len);
    rp_pb_clear(sub);
    location_without_function(doc, sub);
}

static void negative_weight(rp_pb *doc, rp_pb *sub)
{
    rp_pb_packed_i64(sub, SAMPLE_VALUE, -5);
    rp_pb_bytes(doc, PROFILE_SAMPLE, sub->data, sub->len);
}

static void two_values(rp_pb *doc, rp_pb *sub)
{
    rp_pb_int(sub, SAMPLE_VALUE, 5);
    rp_pb_int(sub, SAMPLE_VALUE, 6);
    rp_pb_bytes(doc, PROFILE_SAMPLE, sub->data, sub->len);
}

static void test_corrupt(void **state)
{
    (void)state;
    struct {
        void (*extra)(rp_pb *, rp_pb *);
        const char *needle;
    } cases[] = {
        {sample_at_location_7, "sample 0 refers to location 7, which is not defined"},
        {location_without_function, "location 7 refers to function 3, which is not defined"},
        {function_with_bad_name, "a function's name names string 99 of a table of 5"},
        {negative_weight, "sample 0 has a negative weight (-5)"},
        {two_values, "sample 0 has 2 values for 1 sample types"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t len;
        char *bytes = small_pprof(&len, cases[i].extra);
        expect_refused(bytes, len, cases[i].needle);
        free(bytes);
    }
    /* no sample type in nanoseconds: a "samples/count" profile */
    const char count_only[] = "\x0a\x04\x08\x01\x10\x02\x32\x00\x32\x07samples\x32\x05" "count";
    expect_refused(count_only, sizeof(count_only) - 1, "no sample type is measured in nanoseconds");
    /* a group (wire type 3) at the top */
    const char group[] = "\x0a\x00\x0b";
    expect_refused(group, sizeof(group) - 1, "not a valid protocol buffer at byte 2");
    /* JSON still wins when the text says JSON, and junk is still not JSON */
    expect_refused("\n{", 2, "not valid JSON");
    expect_refused("not a profile", 13, "not valid JSON");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_gem_shape),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_corrupt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
