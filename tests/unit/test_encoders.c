/*
 * Unit tests for the analyzer's encoders: pprof (decoded back here with a
 * small protobuf reader), collapsed, stat (the gem's exact layout), the
 * HTML viewer page (its sections and its data, parsed back with jansson),
 * speedscope (parsed back) and the output format rules.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>

#include "../../profile/encode/collapsed.h"
#include "../../profile/encode/format.h"
#include "../../profile/encode/html.h"
#include "../../profile/encode/pprof.h"
#include "../../profile/encode/speedscope.h"
#include "../../profile/encode/stat.h"
#include "../../profile/encode/table.h"
#include "helpers.h"

static const rp_encode_opts default_options = {.top = 50};

RP_TEST_TMPDIR("rperf-encoders")

/* --- a tiny protobuf reader ------------------------------------------- */

struct pb_cursor {
    const uint8_t *p, *end;
};

static uint64_t read_varint(struct pb_cursor *c)
{
    uint64_t v = 0;
    for (int shift = 0; c->p < c->end; shift += 7) {
        uint8_t b = *c->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    fail_msg("truncated varint");
    return 0;
}

/* Next field: its number, wire type, and (for wire type 2) a sub-cursor. */
static bool next_field(struct pb_cursor *c, uint32_t *field, uint64_t *value, struct pb_cursor *sub)
{
    if (c->p >= c->end)
        return false;
    uint64_t key = read_varint(c);
    *field = (uint32_t)(key >> 3);
    switch (key & 7) {
    case 0:
        *value = read_varint(c);
        break;
    case 2: {
        uint64_t len = read_varint(c);
        assert_true(len <= (uint64_t)(c->end - c->p));
        sub->p = c->p;
        sub->end = c->p + len;
        c->p += len;
        *value = len;
        break;
    }
    default:
        fail_msg("unexpected wire type %d", (int)(key & 7));
    }
    return true;
}

struct decoded {
    char strings[64][64];
    int nstrings;
    int nsamples, nlocations, nfunctions, ncomments;
    uint64_t comments[8];
    uint64_t first_sample_locations[8];
    int first_sample_depth;
    int64_t values_total;
    int labels_gvl_blocked;    /* samples with %GVL=blocked */
    int labels_thread_seq;     /* samples with a numeric thread_seq label */
    uint64_t function_name[16]; /* by function id */
    int64_t period, time_nanos, duration_nanos;
};

static void decode_sample(struct pb_cursor *c, struct decoded *d, bool first)
{
    uint32_t field;
    uint64_t v;
    struct pb_cursor sub;
    while (next_field(c, &field, &v, &sub)) {
        if (field == 1) {
            while (sub.p < sub.end) {
                uint64_t loc = read_varint(&sub);
                if (first && d->first_sample_depth < 8)
                    d->first_sample_locations[d->first_sample_depth++] = loc;
            }
        } else if (field == 2) {
            d->values_total += (int64_t)read_varint(&sub);
        } else if (field == 3) {
            uint32_t lf;
            uint64_t lv, key = 0, str = 0, num = 0;
            struct pb_cursor ls;
            while (next_field(&sub, &lf, &lv, &ls)) {
                if (lf == 1) key = lv;
                if (lf == 2) str = lv;
                if (lf == 3) num = lv;
            }
            (void)num;
            d->labels_thread_seq += key && num && !str;
            d->labels_gvl_blocked += key && str; /* checked by name below */
        }
    }
}

static void decode(const char *data, size_t len, struct decoded *d)
{
    memset(d, 0, sizeof(*d));
    struct pb_cursor c = {(const uint8_t *)data, (const uint8_t *)data + len}, sub;
    uint32_t field;
    uint64_t v;
    while (next_field(&c, &field, &v, &sub)) {
        switch (field) {
        case 2:
            decode_sample(&sub, d, d->nsamples == 0);
            d->nsamples++;
            break;
        case 4:
            d->nlocations++;
            break;
        case 5: {
            uint32_t f;
            uint64_t fv, id = 0, name = 0;
            struct pb_cursor fs;
            while (next_field(&sub, &f, &fv, &fs)) {
                if (f == 1) id = fv;
                if (f == 2) name = fv;
            }
            if (id < 16)
                d->function_name[id] = name;
            d->nfunctions++;
            break;
        }
        case 6:
            assert_true(v < 64 && d->nstrings < 64);
            memcpy(d->strings[d->nstrings], sub.p, v);
            d->strings[d->nstrings++][v] = '\0';
            break;
        case 9: d->time_nanos = (int64_t)v; break;
        case 10: d->duration_nanos = (int64_t)v; break;
        case 12: d->period = (int64_t)v; break;
        case 13:
            if (d->ncomments < 8)
                d->comments[d->ncomments] = v;
            d->ncomments++;
            break;
        default: break;
        }
    }
}

static void make_profile(rp_profile *p)
{
    assert_int_equal(rp_profile_init(p, true), 0);
    uint32_t blocked = label_set1(p, "%GVL", "blocked");
    p->meta.mode = RP_MODE_WALL;
    p->meta.frequency = 500;
    p->meta.start_time_ns = 1700000000000000000;
    p->meta.duration_ns = 3000000000;
    add_sample(p, 2000000, 1, 0, "fib.rb|Object#fibonacci", "fib.rb|<main>", NULL);
    add_sample(p, 500000, 2, blocked, "<C method>|Kernel#sleep", "fib.rb|<main>", NULL);
    add_sample(p, 300000, 1, 0, "other.rb|Object#fibonacci", "fib.rb|<main>", NULL);
}

/* Encodes `p` as (uncompressed) pprof into *bytes, which the caller frees. */
static void write_pprof(const rp_profile *p, char **bytes, size_t *len)
{
    FILE *fp = open_memstream(bytes, len);
    rp_out *out = rp_out_stream(fp, true);
    assert_int_equal(rp_pprof_write(p, out, &default_options), 0);
    assert_int_equal(rp_out_close(out), 0);
}

static void test_pprof_decodes(void **state)
{
    (void)state;
    rp_profile p;
    make_profile(&p);
    char *bytes = NULL;
    size_t len = 0;
    write_pprof(&p, &bytes, &len);

    struct decoded d;
    decode(bytes, len, &d);
    assert_string_equal(d.strings[0], "");
    assert_int_equal(d.nsamples, 3);
    assert_int_equal(d.values_total, 2800000);
    assert_int_equal(d.nlocations, (int)p.frame_count);
    assert_int_equal(d.nfunctions, (int)p.frame_count);
    /* version, mode, frequency, ruby, and the counts profile.proto has no field for */
    assert_int_equal(d.ncomments, 6);
    assert_true(strncmp(d.strings[d.comments[1]], "mode: ", 6) == 0);
    assert_true(strncmp(d.strings[d.comments[4]], "samples: ", 9) == 0);
    assert_non_null(strstr(d.strings[d.comments[4]], ", processes: "));
    assert_true(strncmp(d.strings[d.comments[5]], "profiler: sampling ", 19) == 0);
    assert_int_equal(d.period, 2000000);
    assert_int_equal(d.time_nanos, 1700000000000000000);
    assert_int_equal(d.duration_nanos, 3000000000);
    assert_int_equal(d.labels_thread_seq, 3);
    assert_int_equal(d.labels_gvl_blocked, 1);
    /* the first sample's leaf location is Object#fibonacci, then <main> */
    assert_int_equal(d.first_sample_depth, 2);
    assert_string_equal(d.strings[d.function_name[d.first_sample_locations[0]]], "Object#fibonacci");
    assert_string_equal(d.strings[d.function_name[d.first_sample_locations[1]]], "<main>");
    bool has_wall = false, has_ns = false, has_gvl = false;
    for (int i = 0; i < d.nstrings; i++) {
        has_wall |= strcmp(d.strings[i], "wall") == 0;
        has_ns |= strcmp(d.strings[i], "nanoseconds") == 0;
        has_gvl |= strcmp(d.strings[i], "%GVL") == 0;
    }
    assert_true(has_wall && has_ns && has_gvl);
    free(bytes);
    rp_profile_free(&p);
}

/* Writes `p` as collapsed stacks, compares with `expected`, frees `p`. */
static void expect_collapsed(rp_profile *p, const char *expected)
{
    char *text = NULL;
    CAPTURE_OUTPUT(text, out, assert_int_equal(rp_collapsed_write(p, out, &default_options), 0));
    assert_string_equal(text, expected);
    free(text);
    rp_profile_free(p);
}

static void test_collapsed_merges_by_label(void **state)
{
    (void)state;
    rp_profile p;
    make_profile(&p);
    /* two fibonacci frames differ only by path: one line */
    expect_collapsed(&p, "<main>;Object#fibonacci 2300000\n"
                         "<main>;Kernel#sleep 500000\n");
}

/* The gem's flat table: one row per method name (two paths of
 * Object#fibonacci are one row), Ruby's float text, "(other)" past the
 * rows asked for, a tab or line break in a name made a space, and the
 * summary; the diff table's change in points, largest first. */
static void test_tables(void **state)
{
    (void)state;
    rp_profile p, q;
    make_profile(&p);
    char *text = NULL;
    rp_encode_opts one = {.top = 1};
    CAPTURE_OUTPUT(text, out, { assert_int_equal(rp_table_write(&p, out, &one), 0); });
    assert_string_equal(text, "method\tself_pct\ttotal_pct\tself_ms\n"
                              "Object#fibonacci\t82.14\t82.14\t2.3\n"
                              "(other)\t17.86\t\t0.5\n"
                              "# summary\ttotal_ms=3000.0\n");
    free(text);
    CAPTURE_OUTPUT(text, out, { assert_int_equal(rp_table_json_write(&p, out, NULL), 0); });
    assert_string_equal(text, "[{\"method\":\"Object#fibonacci\",\"self_pct\":82.14,\"total_pct\":82.14,\"self_ms\":2.3},"
                              "{\"method\":\"Kernel#sleep\",\"self_pct\":17.86,\"total_pct\":17.86,\"self_ms\":0.5},"
                              "{\"summary\":{\"total_ms\":3000.0}}]\n");
    free(text);

    assert_int_equal(rp_profile_init(&q, true), 0);
    add_sample(&q, 1000000, 1, 0, "a.rb|odd\tname\n", "a.rb|<main>", NULL);
    add_sample(&q, 3000000, 1, 0, "<C method>|Kernel#sleep", "a.rb|<main>", NULL);
    CAPTURE_OUTPUT(text, out, { assert_int_equal(rp_table_write(&q, out, NULL), 0); });
    assert_non_null(strstr(text, "\nodd name \t25.0\t25.0\t1.0\n"));
    free(text);
    CAPTURE_OUTPUT(text, out, { assert_int_equal(rp_table_diff_write(&p, &q, out, false, 50), 0); });
    assert_string_equal(text, "method\tself_pct_base\tself_pct_head\tdelta_pt\n"
                              "Object#fibonacci\t82.14\t0.0\t-82.14\n"
                              "Kernel#sleep\t17.86\t75.0\t57.14\n"
                              "odd name \t0.0\t25.0\t25.0\n"
                              "# summary\ttotal_ms_base=3000.0\ttotal_ms_head=0.0\ttotal_ms_delta=-3000.0\n");
    free(text);
    rp_profile_free(&p);
    rp_profile_free(&q);
}

/* Frames with lines are drawn label:line, and one method's two lines are
 * two frames. */
static void test_collapsed_with_lines(void **state)
{
    (void)state;
    rp_profile p;
    make_two_line_profile(&p, 10);
    expect_collapsed(&p, "<main>:9;m:3 30\n"
                         "<main>:9;m:5 10\n"
                         "<main>:9;Kernel#sleep 5\n");
}

/* pprof: a location per line, one function per method carrying its first
 * line, Line.line set on Ruby frames only. */
static void test_pprof_lines(void **state)
{
    (void)state;
    rp_profile p;
    make_two_line_profile(&p, 10);
    char *bytes = NULL;
    size_t len = 0;
    write_pprof(&p, &bytes, &len);
    struct pb_cursor c = {(const uint8_t *)bytes, (const uint8_t *)bytes + len}, sub;
    uint32_t field;
    uint64_t v;
    int locations = 0, functions = 0;
    uint64_t line_of_location[8] = {0}, function_of_location[8] = {0}, start_of_function[8] = {0};
    while (next_field(&c, &field, &v, &sub)) {
        uint32_t f;
        uint64_t fv;
        struct pb_cursor fs;
        if (field == 4) {
            uint64_t id = 0;
            while (next_field(&sub, &f, &fv, &fs)) {
                if (f == 1)
                    id = fv;
                if (f == 4) {
                    uint32_t lf;
                    uint64_t lv;
                    struct pb_cursor ls;
                    while (next_field(&fs, &lf, &lv, &ls)) {
                        if (lf == 1) function_of_location[id] = lv;
                        if (lf == 2) line_of_location[id] = lv;
                    }
                }
            }
            locations++;
        } else if (field == 5) {
            uint64_t id = 0, start = 0;
            while (next_field(&sub, &f, &fv, &fs)) {
                if (f == 1) id = fv;
                if (f == 5) start = fv;
            }
            start_of_function[id] = start;
            functions++;
        }
    }
    assert_int_equal(locations, 4); /* m:3, <main>:9, m:5, Kernel#sleep */
    assert_int_equal(functions, 3); /* m, <main>, Kernel#sleep */
    for (uint32_t i = 0; i < p.frame_count; i++) {
        const rp_frame *fr = &p.frames[i];
        assert_int_equal(line_of_location[i + 1], fr->line);
        assert_int_equal(start_of_function[function_of_location[i + 1]], fr->start_line);
    }
    /* both lines of m share one function */
    uint32_t depth;
    uint32_t m3 = rp_stack_table_get(&p.stacks, 0, &depth)[0];
    uint32_t m5 = rp_stack_table_get(&p.stacks, 1, &depth)[0];
    assert_int_equal(function_of_location[m3 + 1], function_of_location[m5 + 1]);
    free(bytes);
    rp_profile_free(&p);
}

static void test_stat_layout(void **state)
{
    (void)state;
    rp_profile p;
    make_profile(&p);
    rp_meta *m = &p.meta;
    m->user_ns = 2326000000;
    m->sys_ns = 64500000;
    m->duration_ns = 2035500000;
    m->total_duration_ns = 2035500000;
    m->sampling_count = 2034;
    m->trigger_count = 2034;
    m->sampling_time_ns = 2035500;
    m->detected_thread_count = 1;
    m->command = malloc(2 * sizeof(uint32_t));
    m->command[0] = rp_profile_cstring(&p, "ruby");
    m->command[1] = rp_profile_cstring(&p, "fib.rb");
    m->command_len = 2;
    m->has_gc = true;
    m->gc = (rp_gc_stats){7, 5, 2, 7000000, 106078, 90000};
    m->has_os = true;
    m->os = (rp_os_stats){22528, 1200, 3, 10, 2, 1048576, 3 * 1048576};
    char *text = NULL;
    CAPTURE_OUTPUT(text, out, assert_int_equal(rp_stat_write(&p, out, false, 50), 0));
    assert_string_equal(text,
        "\n"
        " Performance stats for 'ruby fib.rb':\n"
        "\n"
        "         2,326.0 ms   user\n"
        "            64.5 ms   sys\n"
        "         2,035.5 ms   real\n"
        "\n"
        "             2.3 ms  82.1%  [Rperf] CPU execution\n"
        "             0.5 ms  17.9%  [Rperf] GVL blocked (I/O, sleep)\n"
        "             7.0 ms         [Ruby ] GC time (7 count: 5 minor, 2 major)\n"
        "         106,078            [Ruby ] allocated objects\n"
        "          90,000            [Ruby ] freed objects\n"
        "               1            [Ruby ] detected threads\n"
        "              22 MB         [OS   ] peak memory (maxrss)\n"
        "           1,203            [OS   ] page faults (1,200 minor, 3 major)\n"
        "              12            [OS   ] context switches (10 voluntary, 2 involuntary)\n"
        "               4 MB         [OS   ] disk I/O (1 MB read, 3 MB write)\n"
        "\n"
        "  2034 samples / 2034 triggers, 0.1% profiler overhead\n"
        "\n");
    free(text);

    /* wall mode, more time holding the GVL than CPU time: said what it is */
    m->user_ns = 1000000;
    m->sys_ns = 500000;
    CAPTURE_OUTPUT(text, out, assert_int_equal(rp_stat_write(&p, out, false, 50), 0));
    assert_non_null(strstr(text, "[Rperf] GVL blocked (I/O, sleep)\n  (wall mode: CPU execution is the time a thread "
                                 "held the GVL, 2.3 ms, more than the 1.5 ms of user + sys: a thread holding it is "
                                 "not always on a CPU)\n"));
    free(text);
    m->user_ns = 2326000000;
    m->sys_ns = 64500000;

    /* the worker thread's CPU known (this agent's files): in the overhead */
    m->worker_cpu_ns = 81420000;
    CAPTURE_OUTPUT(text, out, assert_int_equal(rp_stat_write(&p, out, false, 50), 0));
    assert_non_null(strstr(text, "\n  2034 samples / 2034 triggers, 4.1% profiler overhead "
                                 "(sampling 0.1%, the agent's threads 4.0% CPU)\n"));
    free(text);
    m->worker_cpu_ns = 0;

    /* several processes: the count line and the note on what is summed */
    m->process_count = 3;
    CAPTURE_OUTPUT(text, out, assert_int_equal(rp_stat_write(&p, out, true, 50), 0));
    assert_non_null(strstr(text, "\n               3            [Rperf] Ruby processes profiled\n"));
    assert_non_null(strstr(text, "(user/sys and [Rperf] lines are summed over all processes; "
                                 "[Ruby ] and [OS   ] lines are the root process's)"));
    assert_non_null(strstr(text, " Flat:\n"));
    assert_non_null(strstr(text, " Cumulative:\n"));
    free(text);
    rp_profile_free(&p);
}

/* The text between `open` and the next `close` in `text`, or NULL. */
static char *between(const char *text, const char *open, const char *close)
{
    const char *start = strstr(text, open);
    if (!start)
        return NULL;
    start += strlen(open);
    const char *end = strstr(start, close);
    return end ? strndup(start, (size_t)(end - start)) : NULL;
}

/* A page whose method names try to end the page's <script> element and
 * inject markup: every section shows them as text, the data carries them
 * exactly, and nothing of the template is left unreplaced. */
static void test_html_page(void **state)
{
    (void)state;
    rp_profile p;
    assert_int_equal(rp_profile_init(&p, true), 0);
    p.meta.mode = RP_MODE_WALL;
    p.meta.pid = 4242;
    p.meta.process_count = 2;
    p.meta.sampling_count = 3;
    p.meta.trigger_count = 4;
    p.meta.duration_ns = p.meta.total_duration_ns = 10000000;
    p.meta.sampling_time_ns = 20000;
    p.meta.worker_cpu_ns = 300000;
    uint32_t cmd[] = {rp_profile_cstring(&p, "ruby"), rp_profile_cstring(&p, "a&b.rb")};
    p.meta.command = cmd;
    p.meta.command_len = 2;
    uint32_t blocked = label_set1(&p, "%GVL", "blocked");
    uint32_t child = label_set1(&p, "%pid", "4343");
    add_sample(&p, 3000000, 1, 0, "x.rb|</script><img src=x>", "x.rb|<main>", NULL);
    add_sample(&p, 1000000, 1, blocked, "<C method>|Kernel#sleep", "x.rb|<main>", NULL);
    add_sample(&p, 2000000, 1, child, "y.rb|Child#work", "y.rb|<main>", NULL);

    char *page = NULL;
    rp_encode_opts o = default_options;
    CAPTURE_OUTPUT(page, out, assert_int_equal(rp_html_write(&p, out, &o), 0));
    p.meta.command = NULL; /* not the profile's to free */
    p.meta.command_len = 0;

    assert_null(strstr(page, "<!--rperf:"));
    assert_null(strstr(page, "</script><img"));
    assert_null(strstr(page, "http://"));
    assert_null(strstr(page, "https://"));
    assert_non_null(strstr(page, "<title>rperf: ruby a&amp;b.rb</title>"));
    assert_non_null(strstr(page, "default-src 'none'"));
    /* summary: processes, threads (one per process here), the states */
    assert_non_null(strstr(page, "<dt>Processes</dt><dd>2</dd>"));
    assert_non_null(strstr(page, "<dt>Threads</dt><dd>2</dd>"));
    assert_non_null(strstr(page, "<dt>Profiler overhead</dt><dd>3.2% (sampling 0.2%, "
                                 "the agent&#39;s threads 3.0% CPU)</dd>"));
    assert_non_null(strstr(page, "GVL blocked (I/O, sleep)</td><td class=\"num\">1.0 ms</td><td class=\"num\">16.7%</td>"));
    /* The Top and Tags tables are the script's to compute (one source for
     * each number): the page carries none written. */
    assert_non_null(strstr(page, "<tbody id=\"top-body\"></tbody>"));
    assert_non_null(strstr(page, "<div id=\"tags-body\"></div>"));

    char *doc = between(page, "<script type=\"application/json\" id=\"rperf-data\">", "</script>");
    assert_non_null(doc);
    json_error_t err;
    json_t *data = json_loads(doc, 0, &err);
    assert_non_null(data);
    assert_int_equal(json_integer_value(json_object_get(data, "total_ns")), 6000000);
    assert_int_equal(json_integer_value(json_object_get(data, "root_pid")), 4242);
    json_t *strings = json_object_get(data, "strings");
    bool found = false;
    for (size_t i = 0; i < json_array_size(strings); i++)
        found |= strcmp(json_string_value(json_array_get(strings, i)), "</script><img src=x>") == 0;
    assert_true(found);
    /* frames: three per frame and one for "(other)"; nodes: root's
     * children main (x.rb), main (y.rb), and their three leaves */
    assert_int_equal(json_array_size(json_object_get(data, "frames")), 3 * (p.frame_count + 1));
    assert_int_equal(json_array_size(json_object_get(data, "nodes")), 2 * 5);
    json_t *leaves = json_object_get(data, "leaves");
    int64_t sum = 0;
    for (size_t i = 3; i < json_array_size(leaves); i += 4)
        sum += json_integer_value(json_array_get(leaves, i));
    assert_int_equal(sum, 6000000);
    json_t *processes = json_object_get(data, "processes");
    assert_int_equal(json_integer_value(json_array_get(processes, 0)), -1);
    assert_string_equal(json_string_value(json_array_get(strings, json_integer_value(json_array_get(processes, child)))),
                        "4343");
    json_decref(data);
    free(doc);
    free(page);
    rp_profile_free(&p);
}

/* The page of `p` written with `o` and its data document (callers free
 * both). */
static json_t *html_data_with(rp_profile *p, char **page, const rp_encode_opts *o)
{
    CAPTURE_OUTPUT(*page, out, assert_int_equal(rp_html_write(p, out, o), 0));
    char *doc = between(*page, "<script type=\"application/json\" id=\"rperf-data\">", "</script>");
    assert_non_null(doc);
    json_error_t err;
    json_t *data = json_loads(doc, 0, &err);
    free(doc);
    assert_non_null(data);
    return data;
}

static json_t *html_data(rp_profile *p, char **page)
{
    rp_encode_opts o = default_options;
    return html_data_with(p, page, &o);
}

/* Parts (RPERF_INTERVAL) give the page its time strip: each file's slot,
 * from the earliest start; the loader's slot label is no tag of the
 * program. Whole-process profiles give none. */
static void test_html_time_slots(void **state)
{
    (void)state;
    rp_profile p;
    assert_int_equal(rp_profile_init(&p, true), 0);
    add_sample(&p, 1000000, 1, label_set1(&p, RP_SLOT_LABEL, "0"), "a.rb|early", NULL);
    add_sample(&p, 3000000, 1, label_set1(&p, RP_SLOT_LABEL, "1"), "a.rb|late", NULL);
    rp_time_slot slots[] = {{1796000000000000000, 1000000000}, {1796000001000000000, 999000000}};
    p.load.slots = slots;
    p.load.slot_count = 2;

    char *page;
    json_t *data = html_data(&p, &page); /* whole processes */
    assert_null(json_object_get(data, "slots"));
    json_decref(data);
    free(page);

    p.load.has_parts = true;
    data = html_data(&p, &page);
    assert_int_equal(json_integer_value(json_object_get(data, "slots_origin_ns")), 1796000000000000000);
    json_t *got = json_object_get(data, "slots");
    assert_int_equal(json_array_size(got), 4);
    const int64_t want[] = {0, 1000000000, 1000000000, 999000000};
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(json_integer_value(json_array_get(got, i)), want[i]);
    json_decref(data);
    free(page);
    p.load.slots = NULL; /* not the profile's to free */
    rp_profile_free(&p);
}

/* A line-level profile's page carries the sources of the files it weighs,
 * each line as written (a CRLF's CR dropped); a file that cannot be read
 * is there with the reason; C methods are no file. --no-source leaves
 * them all out; --lines starts the page per line. */
static void test_html_sources(void **state)
{
    (void)state;
    char path[256], gone[256], frame[300], gone_frame[300];
    snprintf(path, sizeof(path), "%s", tmp_path("app.rb"));
    snprintf(gone, sizeof(gone), "%s", tmp_path("gone.rb"));
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("def work\r\n  x = 1 # <script>\n  x + 1\nend", f);
    fclose(f);
    rp_profile p;
    assert_int_equal(rp_profile_init(&p, true), 0);
    snprintf(frame, sizeof(frame), "%s|Object#work|3|1", path);
    snprintf(gone_frame, sizeof(gone_frame), "%s|Object#gone|2|1", gone);
    add_sample(&p, 3000000, 1, 0, "<C method>|Integer#+|0|0", frame, NULL);
    add_sample(&p, 1000000, 1, 0, gone_frame, NULL);

    char *page;
    rp_encode_opts o = default_options;
    json_t *data = html_data_with(&p, &page, &o);
    json_t *sources = json_object_get(data, "sources");
    assert_int_equal(json_object_size(sources), 2);
    json_t *lines = json_object_get(json_object_get(sources, path), "lines");
    assert_int_equal(json_array_size(lines), 4);
    assert_string_equal(json_string_value(json_array_get(lines, 0)), "def work");
    assert_string_equal(json_string_value(json_array_get(lines, 1)), "  x = 1 # <script>");
    assert_string_equal(json_string_value(json_array_get(lines, 3)), "end");
    assert_string_equal(json_string_value(json_object_get(json_object_get(sources, gone), "error")),
                        "No such file or directory");
    assert_false(json_is_true(json_object_get(data, "lines_view")));
    assert_null(strstr(page, "# <script>")); /* escaped inside the page's script element */
    json_decref(data);
    free(page);

    o.no_source = true;
    o.lines = true;
    data = html_data_with(&p, &page, &o);
    assert_null(json_object_get(data, "sources"));
    assert_true(json_is_true(json_object_get(data, "lines_view")));
    json_decref(data);
    free(page);
    rp_profile_free(&p);

    /* Without lines: neither. */
    assert_int_equal(rp_profile_init(&p, true), 0);
    add_sample(&p, 1000000, 1, 0, "a.rb|Object#work", NULL);
    o = default_options;
    data = html_data_with(&p, &page, &o);
    assert_null(json_object_get(data, "sources"));
    assert_null(json_object_get(data, "lines_view"));
    json_decref(data);
    free(page);
    rp_profile_free(&p);
}

/* A page that folds light call paths carries each method's exact self
 * and total time (its Top table of everything); one that folds nothing
 * does not need them. */
static void test_html_exact_weights_when_folded(void **state)
{
    (void)state;
    rp_profile p;
    assert_int_equal(rp_profile_init(&p, true), 0);
    add_sample(&p, 1000000000, 1, 0, "m.rb|Main#work", "m.rb|<main>", NULL);
    char *page;
    json_t *data = html_data(&p, &page);
    assert_null(json_object_get(data, "frame_self_ns"));
    json_decref(data);
    free(page);

    char caller[32];
    for (int i = 0; i < 50; i++) {
        snprintf(caller, sizeof(caller), "c.rb|Caller#c%d", i);
        add_sample(&p, 1000, 1, 0, "u.rb|Util#spread", caller, "m.rb|<main>", NULL);
    }
    data = html_data(&p, &page);
    json_t *self = json_object_get(data, "frame_self_ns"), *total = json_object_get(data, "frame_total_ns");
    assert_non_null(self);
    assert_int_equal(json_array_size(self), p.frame_count);
    uint32_t spread = RP_IDX_NONE;
    for (uint32_t f = 0; f < p.frame_count; f++)
        if (strcmp(rp_profile_str(&p, p.frames[f].label), "Util#spread") == 0)
            spread = f;
    assert_int_equal(json_integer_value(json_array_get(self, spread)), 50000);
    int64_t spread_total = -1;
    for (size_t i = 0; i + 1 < json_array_size(total); i += 2)
        if (json_integer_value(json_array_get(total, i)) == spread)
            spread_total = json_integer_value(json_array_get(total, i + 1));
    assert_int_equal(spread_total, 50000);
    json_decref(data);
    free(page);
    rp_profile_free(&p);
}

/* One sampled profile per (process, thread), stacks root first, frames
 * shared, weights in ns summing to endValue. */
static void test_speedscope(void **state)
{
    (void)state;
    rp_profile p;
    assert_int_equal(rp_profile_init(&p, true), 0);
    p.meta.pid = 10;
    uint32_t child = label_set1(&p, "%pid", "11");
    add_sample(&p, 5, 1, 0, "a.rb|leaf", "a.rb|<main>", NULL);
    add_sample(&p, 7, 2, 0, "<C method>|Kernel#sleep", "a.rb|block", NULL);
    add_sample(&p, 3, 1, 0, "a.rb|<main>", NULL);
    add_sample(&p, 2, 1, child, "b.rb|work", "a.rb|<main>", NULL);
    char *text = NULL;
    rp_encode_opts o = default_options;
    CAPTURE_OUTPUT(text, out, assert_int_equal(rp_speedscope_write(&p, out, &o), 0));
    json_error_t err;
    json_t *doc = json_loads(text, 0, &err);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "$schema")),
                        "https://www.speedscope.app/file-format-schema.json");
    json_t *frames = json_object_get(json_object_get(doc, "shared"), "frames");
    assert_int_equal(json_array_size(frames), p.frame_count);
    json_t *profiles = json_object_get(doc, "profiles");
    assert_int_equal(json_array_size(profiles), 3);
    const char *names[] = {"pid 10 thread 1 (cpu)", "pid 10 thread 2 (cpu)", "pid 11 thread 1 (cpu)"};
    const int64_t totals[] = {8, 7, 2};
    for (size_t i = 0; i < 3; i++) {
        json_t *pr = json_array_get(profiles, i);
        assert_string_equal(json_string_value(json_object_get(pr, "name")), names[i]);
        assert_string_equal(json_string_value(json_object_get(pr, "type")), "sampled");
        assert_string_equal(json_string_value(json_object_get(pr, "unit")), "nanoseconds");
        assert_int_equal(json_integer_value(json_object_get(pr, "endValue")), totals[i]);
        json_t *samples = json_object_get(pr, "samples"), *weights = json_object_get(pr, "weights");
        assert_int_equal(json_array_size(samples), json_array_size(weights));
        for (size_t k = 0; k < json_array_size(samples); k++) {
            json_t *stack = json_array_get(samples, k);
            json_int_t root = json_integer_value(json_array_get(stack, 0));
            const char *root_name = json_string_value(json_object_get(json_array_get(frames, (size_t)root), "name"));
            assert_string_equal(root_name, i == 1 ? "block" : "<main>");
        }
    }
    json_decref(doc);
    free(text);
    rp_profile_free(&p);
}

/* -o FILE chooses by extension as the gem does (pprof otherwise); names
 * and compression come from the one table. */
static void test_format_rules(void **state)
{
    (void)state;
    assert_string_equal(rp_format_for_path("p.pb.gz")->name, "pprof");
    assert_string_equal(rp_format_for_path("p.collapsed")->name, "collapsed");
    assert_string_equal(rp_format_for_path("p.txt")->name, "text");
    assert_string_equal(rp_format_for_path("p.json")->name, "json");
    assert_string_equal(rp_format_for_path("p.json.gz")->name, "json");
    assert_string_equal(rp_format_for_path("flame.html")->name, "html");
    assert_string_equal(rp_format_for_path("x.speedscope.json")->name, "speedscope");
    assert_string_equal(rp_format_for_path("rperf.data")->name, "pprof");
    assert_string_equal(rp_format_named("collapsed")->name, "collapsed");
    assert_null(rp_format_named("svg"));
    const rp_format *json = rp_format_named("json"), *pprof = rp_format_named("pprof");
    assert_true(rp_format_compressed(json, "x.json.gz"));
    assert_false(rp_format_compressed(json, "x.json"));
    assert_false(rp_format_compressed(json, NULL));
    assert_true(rp_format_compressed(pprof, NULL));
    assert_true(pprof->binary);
    for (size_t i = 0; i < rp_format_count; i++)
        assert_non_null(rp_formats[i].encode);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pprof_decodes),
        cmocka_unit_test(test_collapsed_merges_by_label),
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_collapsed_with_lines),
        cmocka_unit_test(test_pprof_lines),
        cmocka_unit_test(test_stat_layout),
        cmocka_unit_test(test_html_page),
        cmocka_unit_test(test_html_time_slots),
        cmocka_unit_test(test_html_sources),
        cmocka_unit_test(test_html_exact_weights_when_folded),
        cmocka_unit_test(test_speedscope),
        cmocka_unit_test(test_format_rules),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
