/*
 * Unit tests for common/profile_write + common/profile_read: the .json.gz
 * round trip, and a clear error for every kind of bad file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <unistd.h>
#include <zlib.h>

#include "../../profile/load.h"
#include "../../profile/profile_read.h"
#include "../../profile/profile_write.h"
#include "../../profile/schema.h"
#include "helpers.h"

RP_TEST_TMPDIR("rperf-test-io")

static void build_sample_profile(rp_profile *p, bool aggregate)
{
    assert_int_equal(rp_profile_init(p, aggregate), 0);
    uint32_t blocked = label_set1(p, "%GVL", "blocked");
    add_sample(p, 3000000, 1, 0, "fib.rb|Object#fibonacci", "fib.rb|<main>", NULL);
    add_sample(p, 1000000, 1, 0, "fib.rb|Object#fibonacci", "fib.rb|<main>", NULL);
    add_sample(p, 500000, 2, blocked, "<C method>|Kernel#sleep", "app.rb|block in <main>", NULL);
    rp_meta *m = &p->meta;
    m->mode = RP_MODE_WALL;
    m->pid = 4242;
    m->ppid = 1;
    m->frequency = 999;
    m->trigger_count = 10;
    m->sampling_count = 9;
    m->sampling_time_ns = 12345;
    m->worker_cpu_ns = 67890;
    m->detected_thread_count = 2;
    m->start_time_ns = 1700000000123456789;
    m->duration_ns = 2000000000;
    m->user_ns = 1500000000;
    m->sys_ns = 60000000;
    m->dropped_samples = 1;
    m->ruby_version = rp_profile_cstring(p, "3.4.5");
    static uint32_t command[2];
    command[0] = rp_profile_cstring(p, "ruby");
    command[1] = rp_profile_cstring(p, "fib.rb");
    m->command = malloc(sizeof(command));
    memcpy(m->command, command, sizeof(command));
    m->command_len = 2;
    m->has_gc = true;
    m->gc = (rp_gc_stats){7, 5, 2, 7000000, 106078, 90000};
    m->has_os = true;
    m->os = (rp_os_stats){22528, 100, 1, 5, 6, 4096, 8192};
    m->has_yjit = true;
    m->yjit_ratio = 0.5;
}

/* Text of a frame of sample `i` at depth `d`, as "path|label". */
static const char *frame_text(const rp_profile *p, size_t i, uint32_t d)
{
    static char buf[256];
    uint32_t depth;
    const uint32_t *frames = rp_stack_table_get(&p->stacks, p->samples.samples[i].stack, &depth);
    const rp_frame *f = &p->frames[frames[d]];
    snprintf(buf, sizeof(buf), "%s|%s", rp_profile_str(p, f->path), rp_profile_str(p, f->label));
    return buf;
}

static void test_round_trip_keeps_everything(void **state)
{
    (void)state;
    rp_profile w, r;
    char err[RP_READ_ERROR_MAX];
    build_sample_profile(&w, true);
    w.meta.part = 3;
    w.meta.parts_at_full_stacks = 1;
    const char *path = tmp_path("round.json.gz");
    assert_int_equal(rp_profile_write_file(&w, path, RP_GZIP_DEFAULT), 0);
    assert_int_equal(rp_profile_init(&r, true), 0);
    assert_int_equal(rp_profile_read_file(&r, path, err), 0);

    assert_int_equal(r.meta.mode, RP_MODE_WALL);
    assert_int_equal(r.meta.pid, 4242);
    assert_int_equal(r.meta.frequency, 999);
    assert_int_equal(r.meta.trigger_count, 10);
    assert_int_equal(r.meta.sampling_count, 9);
    assert_int_equal(r.meta.sampling_time_ns, 12345);
    assert_int_equal(r.meta.worker_cpu_ns, 67890);
    assert_int_equal(r.meta.start_time_ns, 1700000000123456789);
    assert_int_equal(r.meta.duration_ns, 2000000000);
    assert_int_equal(r.meta.dropped_samples, 1);
    assert_int_equal(r.meta.part, 3);
    assert_int_equal(r.meta.parts_at_full_stacks, 1);
    assert_int_equal(r.meta.parts_at_interval, 0);
    assert_string_equal(rp_profile_str(&r, r.meta.ruby_version), "3.4.5");
    assert_string_equal(rp_profile_str(&r, r.meta.rperf_version), RP_VERSION);
    assert_int_equal(r.meta.command_len, 2);
    assert_string_equal(rp_profile_str(&r, r.meta.command[1]), "fib.rb");
    assert_true(r.meta.has_gc && r.meta.has_os && r.meta.has_yjit);
    assert_int_equal(r.meta.gc.allocated_objects, 106078);
    assert_int_equal(r.meta.os.io_write_bytes, 8192);
    assert_true(r.meta.yjit_ratio == 0.5);

    assert_int_equal(r.samples.count, 2);
    assert_int_equal(r.samples.samples[0].weight, 4000000);
    assert_string_equal(frame_text(&r, 0, 0), "fib.rb|Object#fibonacci");
    assert_string_equal(frame_text(&r, 0, 1), "fib.rb|<main>");
    assert_string_equal(frame_text(&r, 1, 0), "<C method>|Kernel#sleep");
    assert_int_equal(r.samples.samples[1].thread_seq, 2);
    const rp_label_set *ls = &r.label_sets[r.samples.samples[1].label_set];
    assert_int_equal(ls->count, 1);
    assert_string_equal(rp_profile_str(&r, r.labels[ls->first].key), "%GVL");
    assert_string_equal(rp_profile_str(&r, r.labels[ls->first].value), "blocked");
    rp_profile_free(&w);
    rp_profile_free(&r);
}

static void test_raw_samples_are_read_and_aggregated(void **state)
{
    (void)state;
    rp_profile w, r;
    char err[RP_READ_ERROR_MAX];
    build_sample_profile(&w, false);
    assert_int_equal(w.samples.count, 3);
    const char *path = tmp_path("raw.json.gz");
    assert_int_equal(rp_profile_write_file(&w, path, RP_GZIP_DEFAULT), 0);
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "zcat '%s' | grep -q '\"raw_samples\":'", path);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(rp_profile_init(&r, true), 0);
    assert_int_equal(rp_profile_read_file(&r, path, err), 0);
    assert_int_equal(r.samples.count, 2);
    assert_int_equal(r.samples.samples[0].weight, 4000000);
    rp_profile_free(&w);
    rp_profile_free(&r);
}

/* Raw samples that say when they were taken (RPERF_AGGREGATE=0) are read
 * one by one with their times; a page's loading (time slots) puts each in
 * the stretch of its file where it ended, and the rest of the file (its
 * facts) once. */
static void test_raw_sample_times(void **state)
{
    (void)state;
    rp_profile w, r;
    char err[RP_READ_ERROR_MAX];
    build_sample_profile(&w, false);
    rp_sample_table_free(&w.samples);
    rp_sample_table_init(&w.samples, false);
    const int64_t start = w.meta.start_time_ns; /* a run of 2 s: stretches of 10 ms */
    /* stacks 0 and 1: those build_sample_profile made */
    assert_int_equal(rp_sample_table_add_at(&w.samples, 0, 1, 0, 3000000, start + 5000000), RP_SAMPLE_OK);
    assert_int_equal(rp_sample_table_add_at(&w.samples, 0, 1, 0, 1000000, start + 1500000000), RP_SAMPLE_OK);
    assert_int_equal(rp_sample_table_add_at(&w.samples, 1, 2, 0, 2000000, start + 1504000000), RP_SAMPLE_OK);
    const char *path = tmp_path("timed.json.gz");
    assert_int_equal(rp_profile_write_file(&w, path, RP_GZIP_DEFAULT), 0);
    assert_int_equal(rp_profile_init(&r, true), 0);
    assert_int_equal(rp_profile_read_file(&r, path, err), 0);
    assert_false(r.samples.aggregate);
    assert_int_equal(r.samples.count, 3);
    assert_non_null(r.samples.times);
    assert_int_equal(r.samples.times[1], start + 1500000000);
    rp_profile_free(&r);

    char *paths[] = {(char *)path};
    rp_load_spec spec = {.time_slots = true};
    assert_int_equal(rp_load_paths(paths, 1, &spec, &r), 0);
    assert_true(r.load.has_sample_times);
    assert_int_equal(r.load.slot_count, 2); /* the stretches with samples */
    assert_int_equal(r.load.slots[0].start_ns, start);
    assert_int_equal(r.load.slots[0].duration_ns, 10000000);
    assert_int_equal(r.load.slots[1].start_ns, start + 1500000000);
    int64_t in_slot[2] = {0, 0};
    for (size_t i = 0; i < r.samples.count; i++) {
        const char *slot = rp_profile_str(&r, rp_profile_label_value(&r, r.samples.samples[i].label_set,
                                                                     rp_label_key_of(&r, RP_SLOT_LABEL).id));
        in_slot[atoi(slot)] += r.samples.samples[i].weight;
    }
    assert_int_equal(in_slot[0], 3000000);
    assert_int_equal(in_slot[1], 3000000);
    assert_int_equal(r.meta.duration_ns, w.meta.duration_ns); /* the facts once */
    assert_int_equal(r.meta.process_count, 1);
    rp_profile_free(&r);
    rp_profile_free(&w);
}

/* Reads `json` (gzip-compressed) and expects an error containing `expect`. */
static void expect_error(const char *json, const char *expect)
{
    rp_profile p;
    char err[RP_READ_ERROR_MAX] = "";
    const char *path = tmp_path("bad.json.gz");
    write_file(path, json, strlen(json), true);
    assert_int_equal(rp_profile_init(&p, true), 0);
    assert_int_equal(rp_profile_read_file(&p, path, err), -1);
    if (!strstr(err, expect))
        fail_msg("error \"%s\" does not mention \"%s\" for %s", err, expect, json);
    rp_profile_free(&p);
}

static void test_bad_documents_are_named(void **state)
{
    (void)state;
    expect_error("", "empty file");
    expect_error("hello", "not valid JSON");
    expect_error("{\"aggregated_samples\": [", "not valid JSON");
    expect_error("[1,2]", "not a JSON object");
    expect_error("{\"mode\":\"cpu\"}", "no \"aggregated_samples\"");
    expect_error("{\"aggregated_samples\": {}}", "must be an array");
    expect_error("{\"mode\":\"gpu\",\"aggregated_samples\":[]}", "\"mode\"");
    expect_error("{\"frequency\":-1,\"aggregated_samples\":[]}", "\"frequency\" must be a non-negative");
    expect_error("{\"pid\":\"12\",\"aggregated_samples\":[]}", "\"pid\"");
    expect_error("{\"aggregated_samples\":[5]}", "sample 0: expected");
    expect_error("{\"aggregated_samples\":[[[], -5, 1, 0]]}", "sample 0: weight");
    expect_error("{\"aggregated_samples\":[[[], 1.5, 1, 0]]}", "sample 0: weight");
    expect_error("{\"aggregated_samples\":[[[], \"5\", 1, 0]]}", "sample 0: weight");
    expect_error("{\"aggregated_samples\":[[{}, 5, 1, 0]]}", "frames must be an array");
    expect_error("{\"aggregated_samples\":[[[[\"a\"]], 5, 1, 0]]}", "sample 0, frame 0");
    expect_error("{\"aggregated_samples\":[[[[\"a\", 3]], 5, 1, 0]]}", "sample 0, frame 0");
    expect_error("{\"aggregated_samples\":[[[[\"a\", \"b\", -3]], 5, 1, 0]]}", "sample 0, frame 0");
    expect_error("{\"aggregated_samples\":[[[[\"a\", \"b\", 2.5]], 5, 1, 0]]}", "sample 0, frame 0");
    expect_error("{\"aggregated_samples\":[[[[\"a\", \"b\", \"7\"]], 5, 1, 0]]}", "sample 0, frame 0");
    expect_error("{\"aggregated_samples\":[[[[\"a\", \"b\", 4294967296]], 5, 1, 0]]}",
                 "sample 0, frame 0");
    expect_error("{\"aggregated_samples\":[[[[\"a\", \"b\", 7, null]], 5, 1, 0]]}",
                 "optionally the line");
    expect_error("{\"aggregated_samples\":[[[], 5, -1, 0]]}", "thread_seq");
    expect_error("{\"aggregated_samples\":[[[], 5, 1, 7]], \"label_sets\":[{}]}",
                 "label_set_id 7 is out of range (1 label sets)");
    expect_error("{\"aggregated_samples\":[[[], 5, 1, 1]]}", "label_set_id 1 is out of range");
    expect_error("{\"aggregated_samples\":[], \"label_sets\":[[]]}", "label set 0 must be an object");
    expect_error("{\"aggregated_samples\":[], \"label_sets\":[{\"k\":[1]}]}", "value of \"k\"");
    expect_error("{\"aggregated_samples\":[[[], 9223372036854775807, 1, 0],"
                 "[[], 9223372036854775807, 1, 0]]}",
                 "overflows");
    expect_error("{\"aggregated_samples\":[], \"command\":[1]}", "\"command\"");
    expect_error("{\"aggregated_samples\":[], \"gc\":5}", "\"gc\" must be an object");
    expect_error("{\"aggregated_samples\":[], \"yjit_ratio\":7}", "yjit_ratio");
}

/* Reads `json` (gzip-compressed) into `p`, which the caller frees. */
static void read_json(rp_profile *p, const char *json)
{
    char err[RP_READ_ERROR_MAX] = "";
    const char *path = tmp_path("doc.json.gz");
    write_file(path, json, strlen(json), true);
    assert_int_equal(rp_profile_init(p, true), 0);
    if (rp_profile_read_file(p, path, err) != 0)
        fail_msg("%s: %s", json, err);
}

/* Frames are [path, label], [path, label, line] or [path, label, line,
 * first_line]; one method at two lines is two frames; elements after the
 * fourth are ignored (a later format may add some). */
static void test_frames_with_lines_are_read(void **state)
{
    (void)state;
    rp_profile p;
    read_json(&p, "{\"aggregated_samples\":["
                  "[[[\"a.rb\", \"m\", 3, 1], [\"a.rb\", \"<main>\"]], 5, 1, 0],"
                  "[[[\"a.rb\", \"m\", 4], [\"a.rb\", \"<main>\"]], 6, 1, 0],"
                  "[[[\"a.rb\", \"m\", 4, 1, \"later\"], [\"a.rb\", \"<main>\"]], 7, 1, 0]]}");
    assert_int_equal(p.frame_count, 3);
    assert_int_equal(p.stacks.count, 2);
    uint32_t depth;
    const uint32_t *first = rp_stack_table_get(&p.stacks, 0, &depth);
    const uint32_t *second = rp_stack_table_get(&p.stacks, 1, &depth);
    assert_int_equal(p.frames[first[0]].line, 3);
    assert_int_equal(p.frames[first[0]].start_line, 1);
    assert_int_equal(p.frames[second[0]].line, 4);
    assert_int_equal(p.frames[second[0]].start_line, 1); /* the later copy filled it in */
    assert_int_equal(p.frames[first[1]].line, 0);
    assert_int_equal(rp_sample_table_total(&p.samples), 18);
    rp_profile_free(&p);
}

/* Line frames are written as [path, label, line, first_line] and read back
 * the same; method frames stay [path, label]. */
static void test_lines_round_trip(void **state)
{
    (void)state;
    rp_profile p, back;
    assert_int_equal(rp_profile_init(&p, true), 0);
    add_sample(&p, 5, 1, 0, "a.rb|m|3|1", "<C method>|Integer#times", NULL);
    add_sample(&p, 6, 1, 0, "a.rb|m|4", "<C method>|Integer#times", NULL);
    char *text = NULL;
    CAPTURE_OUTPUT(text, out, rp_profile_write_json(&p, out));
    assert_non_null(strstr(text, "[\"a.rb\",\"m\",3,1]"));
    assert_non_null(strstr(text, "[\"a.rb\",\"m\",4]"));
    assert_non_null(strstr(text, "[\"<C method>\",\"Integer#times\"]"));
    read_json(&back, text);
    assert_int_equal(back.frame_count, p.frame_count);
    for (size_t i = 0; i < p.frame_count; i++) {
        assert_int_equal(back.frames[i].line, p.frames[i].line);
        assert_int_equal(back.frames[i].start_line, p.frames[i].start_line);
    }
    free(text);
    rp_profile_free(&p);
    rp_profile_free(&back);
}

/* A label set is a map: pair order does not matter, a repeated key keeps
 * its last value, and pairs are kept in the order of the keys' text
 * whatever order their strings were interned in. */
static void test_label_sets_are_maps(void **state)
{
    (void)state;
    rp_profile p;
    assert_int_equal(rp_profile_init(&p, true), 0);
    uint32_t b = rp_profile_cstring(&p, "b"), a = rp_profile_cstring(&p, "a");
    uint32_t one = rp_profile_cstring(&p, "1"), two = rp_profile_cstring(&p, "2");
    rp_label ba[] = {{b, one}, {a, two}}, ab[] = {{a, two}, {b, one}};
    rp_label repeated[] = {{a, one}, {b, one}, {a, two}};
    uint32_t id = rp_profile_label_set(&p, ba, 2);
    assert_int_equal(rp_profile_label_set(&p, ab, 2), id);
    assert_int_equal(rp_profile_label_set(&p, repeated, 3), id);
    const rp_label_set *ls = &p.label_sets[id];
    assert_int_equal(ls->count, 2);
    assert_int_equal(p.labels[ls->first].key, a); /* "a" first, though interned second */
    assert_int_equal(p.labels[ls->first].value, two);
    rp_profile_free(&p);
}

static void test_bad_files_are_named(void **state)
{
    (void)state;
    rp_profile p;
    char err[RP_READ_ERROR_MAX];
    assert_int_equal(rp_profile_init(&p, true), 0);

    assert_int_equal(rp_profile_read_file(&p, tmp_path("missing.json.gz"), err), -1);
    assert_non_null(strstr(err, "cannot open"));

    /* A gzip stream cut in the middle. */
    rp_profile w;
    build_sample_profile(&w, true);
    const char *good = tmp_path("good.json.gz");
    assert_int_equal(rp_profile_write_file(&w, good, RP_GZIP_DEFAULT), 0);
    rp_profile_free(&w);
    FILE *f = fopen(good, "rb");
    char buf[4096];
    size_t n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    write_file(tmp_path("cut.json.gz"), buf, n / 2, false);
    assert_int_equal(rp_profile_read_file(&p, tmp_path("cut.json.gz"), err), -1);
    assert_non_null(strstr(err, "gzip"));

    /* Plain JSON (not compressed) is accepted, as the gem's load does. */
    const char *plain = "{\"mode\":\"cpu\",\"frequency\":100,"
                        "\"aggregated_samples\":[[[[\"a.rb\",\"m\"]],5,1,0]]}";
    write_file(tmp_path("plain.json"), plain, strlen(plain), false);
    assert_int_equal(rp_profile_read_file(&p, tmp_path("plain.json"), err), 0);
    assert_int_equal(p.samples.count, 1);

    /* Binary garbage that is neither gzip nor JSON. */
    write_file(tmp_path("junk.json.gz"), "\x01\x02\x03\xff", 4, false);
    assert_int_equal(rp_profile_read_file(&p, tmp_path("junk.json.gz"), err), -1);
    assert_non_null(strstr(err, "not valid JSON"));
    rp_profile_free(&p);
}

/* A document as the rperf gem 0.9 writes it: extra keys, no extensions,
 * label values that are not strings. */
static void test_gem_document_is_read(void **state)
{
    (void)state;
    static const char doc[] =
        "{\"meta\":{\"x\":1},\"summary\":{},\"mode\":\"wall\",\"frequency\":1000,"
        "\"trigger_count\":3,\"sampling_count\":3,\"sampling_time_ns\":900,"
        "\"detected_thread_count\":1,\"unique_frames\":2,\"unique_stacks\":2,"
        "\"start_time_ns\":1,\"duration_ns\":5000000,"
        "\"aggregated_samples\":[[[[\"x.rb\",\"Foo#bar\"],[\"x.rb\",\"<main>\"]],2000000,1,0],"
        "[[[\"<C method>\",\"Kernel#sleep\"]],3000000,1,1]],"
        "\"label_sets\":[{},{\"%GVL\":\"blocked\",\"request\":42}],"
        "\"gc_stats\":{\"count\":7,\"minor_count\":5,\"major_count\":2,\"time_ms\":9,"
        "\"allocated_objects\":100,\"freed_objects\":50},"
        "\"rperf_version\":\"0.9.0\",\"pid\":10,\"ppid\":1}";
    rp_profile p;
    char err[RP_READ_ERROR_MAX];
    assert_int_equal(rp_profile_init(&p, true), 0);
    assert_int_equal(rp_profile_read_buffer(&p, doc, sizeof(doc) - 1, err), 0);
    assert_int_equal(p.meta.mode, RP_MODE_WALL);
    assert_int_equal(p.samples.count, 2);
    const rp_label_set *ls = &p.label_sets[p.samples.samples[1].label_set];
    assert_int_equal(ls->count, 2);
    assert_true(p.meta.has_gc);
    assert_int_equal(p.meta.gc.time_ns, 9000000);
    assert_int_equal(p.meta.gc.minor_count, 5);
    rp_profile_free(&p);
}

static void count_chunk(void *arg)
{
    (*(int *)arg)++;
}

/* A file written paced calls back after each 64 KB of JSON (the agent's
 * worker folds samples then) and reads back whole. */
static void test_paced_write_calls_back_between_chunks(void **state)
{
    (void)state;
    rp_profile w, r;
    char err[RP_READ_ERROR_MAX];
    assert_int_equal(rp_profile_init(&w, true), 0);
    uint32_t path = rp_profile_cstring(&w, "app/models/a_rather_long_file_name_for_a_model.rb");
    for (uint32_t i = 0; i < 2000; i++) {
        char label[64];
        snprintf(label, sizeof(label), "Model%u#method_with_a_long_name", i);
        uint32_t frames[2] = {rp_profile_frame(&w, path, rp_profile_cstring(&w, label)),
                              rp_profile_frame(&w, path, rp_profile_cstring(&w, "<main>"))};
        uint32_t stack = rp_profile_stack(&w, frames, 2);
        assert_int_equal(rp_sample_table_add(&w.samples, stack, 1, 0, 1000 + i), RP_SAMPLE_OK);
    }
    int chunks = 0;
    const char *file = tmp_path("paced.json.gz");
    assert_int_equal(rp_profile_write_file_paced(&w, file, RP_GZIP_FAST, count_chunk, &chunks), 0);
    assert_true(chunks >= 2); /* about 250 KB of JSON */
    assert_int_equal(rp_profile_init(&r, true), 0);
    assert_int_equal(rp_profile_read_file(&r, file, err), 0);
    assert_int_equal(r.samples.count, 2000);
    rp_profile_free(&w);
    rp_profile_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_keeps_everything),
        cmocka_unit_test(test_paced_write_calls_back_between_chunks),
        cmocka_unit_test(test_raw_samples_are_read_and_aggregated),
        cmocka_unit_test(test_raw_sample_times),
        cmocka_unit_test(test_bad_documents_are_named),
        cmocka_unit_test(test_bad_files_are_named),
        cmocka_unit_test(test_frames_with_lines_are_read),
        cmocka_unit_test(test_lines_round_trip),
        cmocka_unit_test(test_label_sets_are_maps),
        cmocka_unit_test(test_gem_document_is_read),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
