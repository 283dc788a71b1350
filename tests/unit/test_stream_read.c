/*
 * Unit tests for reading profile files as streams (common/gzip_file.c,
 * the JSON reader's window, profile/profile_read.c): whatever the window
 * cuts — strings, escapes, numbers, frames — and whatever gzip shape zlib
 * reads (several members, trailing bytes, damage), a file reads exactly as
 * the same document read whole from memory, or fails as zlib says.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <unistd.h>
#include <zlib.h>

#include "../../profile/profile_read.h"
#include "../../profile/profile_write.h"
#include "helpers.h"

RP_TEST_TMPDIR("rperf-test-stream")

/* A text that grows as it is appended to. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

__attribute__((format(printf, 2, 3))) static void append(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* A document of several megabytes (several windows) whose frames hold
 * escapes of every kind — surrogate pairs among them — at every offset,
 * numbers of every length, a label far longer than a window, and frames
 * that repeat (read by their bytes the second time). */
static text make_document(void)
{
    text t = {0};
    append(&t, "{\"mode\":\"wall\",\"frequency\":1000,\"aggregated_samples\":[");
    for (int i = 0; i < 60000; i++) {
        const char *escape = (const char *[]){"\\\"", "\\\\", "\\u00e9", "\\ud83d\\ude00", "\\n", "/", "\\/"}[i % 7];
        append(&t, "%s[[[\"app/%s%d.rb\",\"C%d#m%s\",%d],[\"<C method>\",\"Kernel#x%d\"]],%d,%d,%d]",
               i ? "," : "", escape, i % 997, i % 13, escape, 1 + i % 91, i % 5, 1 + i * 37 % 100003,
               1 + i % 4, i % 3);
    }
    append(&t, ",[[[\"huge.rb\",\"");
    for (int i = 0; i < 3 << 20; i++)
        append(&t, "%c", i % 1000 == 999 ? 'y' : 'x');
    append(&t, "\\u00e9\"]],7,1,0]],\"label_sets\":[{},{\"%%GVL\":\"blocked\"},{\"k\":\"v\\u00e9\"}]}\n");
    return t;
}

static void write_gzip_members(const char *path, const char *data, size_t len, int members,
                               const char *trailer, size_t trailer_len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (int m = 0; m < members; m++) {
        size_t from = len * (size_t)m / (size_t)members, to = len * (size_t)(m + 1) / (size_t)members;
        uLongf cap = compressBound(to - from) + 64;
        unsigned char *out = malloc(cap);
        z_stream z = {0};
        assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
        z.next_in = (unsigned char *)data + from;
        z.avail_in = (uInt)(to - from);
        z.next_out = out;
        z.avail_out = (uInt)cap;
        assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
        fwrite(out, 1, z.total_out, f);
        deflateEnd(&z);
        free(out);
    }
    if (trailer_len)
        fwrite(trailer, 1, trailer_len, f);
    fclose(f);
}

/* The profile as JSON text, to compare two readings: written with one
 * creation time (a document without one is stamped when written, and
 * two writings may fall in two seconds). */
static char *as_json(rp_profile *p)
{
    char *s = NULL;
    if (p->meta.created_at == RP_IDX_NONE)
        p->meta.created_at = rp_profile_cstring(p, "2026-01-01T00:00:00Z");
    CAPTURE_OUTPUT(s, out, assert_int_equal(rp_profile_write_json(p, out), 0));
    return s;
}

/* Reads `path` streamed and expects what reading `doc` whole gives. */
static void expect_same_as_whole(const char *path, const text *doc)
{
    rp_profile whole, streamed;
    char err[RP_READ_ERROR_MAX];
    assert_int_equal(rp_profile_init(&whole, true), 0);
    assert_int_equal(rp_profile_init(&streamed, true), 0);
    assert_int_equal(rp_profile_read_buffer(&whole, doc->s, doc->len, err), 0);
    if (rp_profile_read_file(&streamed, path, err) != 0)
        fail_msg("%s: %s", path, err);
    char *a = as_json(&whole), *b = as_json(&streamed);
    assert_true(strlen(a) > (3u << 20));
    assert_string_equal(a, b);
    free(a);
    free(b);
    rp_profile_free(&whole);
    rp_profile_free(&streamed);
}

static void test_windows_cut_nothing(void **state)
{
    (void)state;
    text doc = make_document();
    write_file(tmp_path("plain.json"), doc.s, doc.len, false);
    expect_same_as_whole(tmp_path("plain.json"), &doc);
    write_gzip_members(tmp_path("one.json.gz"), doc.s, doc.len, 1, NULL, 0);
    expect_same_as_whole(tmp_path("one.json.gz"), &doc);
    free(doc.s);
}

/* gzip files of several members (cat a.gz b.gz) are one document. */
static void test_members_are_one_document(void **state)
{
    (void)state;
    text doc = make_document();
    write_gzip_members(tmp_path("seven.json.gz"), doc.s, doc.len, 7, NULL, 0);
    expect_same_as_whole(tmp_path("seven.json.gz"), &doc);
    free(doc.s);
}

/* What zlib makes of a file, read whole, then parsed from memory: 0, or -1. */
static int read_as_zlib_does(const char *path, rp_profile *p, char *err)
{
    gzFile gz = gzopen(path, "rb");
    text t = {.cap = 16 << 20};
    t.s = malloc(t.cap);
    int n, zerr;
    while ((n = gzread(gz, t.s + t.len, (unsigned)(t.cap - t.len))) > 0)
        t.len += (size_t)n;
    gzerror(gz, &zerr);
    gzclose(gz);
    int rc = n < 0 || zerr != Z_OK ? -1 : rp_profile_read_buffer(p, t.s ? t.s : "", t.len, err);
    free(t.s);
    return rc;
}

/* Trailing bytes after the last member: read as zlib reads them. */
static void test_trailing_bytes_as_zlib(void **state)
{
    (void)state;
    text doc = make_document();
    const char *const trailers[] = {"\n", "garbage", "\x1f", "\x1f\x8b\x08 not a member"};
    for (size_t i = 0; i < sizeof(trailers) / sizeof(trailers[0]); i++) {
        write_gzip_members(tmp_path("trail.json.gz"), doc.s, doc.len, 2, trailers[i], strlen(trailers[i]));
        rp_profile ours, zlibs;
        char err[RP_READ_ERROR_MAX], zerr[RP_READ_ERROR_MAX];
        assert_int_equal(rp_profile_init(&ours, true), 0);
        assert_int_equal(rp_profile_init(&zlibs, true), 0);
        int rc = rp_profile_read_file(&ours, tmp_path("trail.json.gz"), err);
        assert_int_equal(rc, read_as_zlib_does(tmp_path("trail.json.gz"), &zlibs, zerr));
        if (rc == 0) {
            char *a = as_json(&ours), *b = as_json(&zlibs);
            assert_string_equal(a, b);
            free(a);
            free(b);
        }
        rp_profile_free(&ours);
        rp_profile_free(&zlibs);
    }
    free(doc.s);
}

/* Cut short or damaged in the middle: zlib's words. */
static void test_damage_is_named(void **state)
{
    (void)state;
    text doc = make_document();
    write_gzip_members(tmp_path("whole.json.gz"), doc.s, doc.len, 1, NULL, 0);
    FILE *f = fopen(tmp_path("whole.json.gz"), "rb");
    text gz = {.cap = doc.len};
    gz.s = malloc(gz.cap);
    gz.len = fread(gz.s, 1, gz.cap, f);
    fclose(f);
    rp_profile p;
    char err[RP_READ_ERROR_MAX];

    write_file(tmp_path("cut.json.gz"), gz.s, gz.len * 2 / 3, false);
    assert_int_equal(rp_profile_init(&p, true), 0);
    assert_int_equal(rp_profile_read_file(&p, tmp_path("cut.json.gz"), err), -1);
    if (!strstr(err, "truncated or corrupt gzip data"))
        fail_msg("cut: %s", err);
    rp_profile_free(&p);

    gz.s[gz.len / 2] ^= 0x55;
    gz.s[gz.len / 2 + 1] ^= 0xaa;
    write_file(tmp_path("bad.json.gz"), gz.s, gz.len, false);
    assert_int_equal(rp_profile_init(&p, true), 0);
    assert_int_equal(rp_profile_read_file(&p, tmp_path("bad.json.gz"), err), -1);
    if (!strstr(err, "gzip data"))
        fail_msg("damaged: %s", err);
    rp_profile_free(&p);
    free(gz.s);
    free(doc.s);
}

/* A syntax error deep in a streamed document: its line, counted across
 * the windows that went before. */
static void test_errors_say_their_line(void **state)
{
    (void)state;
    text t = {0};
    append(&t, "{\"mode\":\"cpu\",\"aggregated_samples\":[\n");
    for (int i = 0; i < 40000; i++)
        append(&t, "[[[\"a.rb\",\"m%d\"]],1,1,0],\n", i);
    append(&t, "[[[\"a.rb\",\"m\"]],1,1,0] oops]}\n");
    write_file(tmp_path("syntax.json"), t.s, t.len, false);
    rp_profile p;
    char err[RP_READ_ERROR_MAX];
    assert_int_equal(rp_profile_init(&p, true), 0);
    assert_int_equal(rp_profile_read_file(&p, tmp_path("syntax.json"), err), -1);
    assert_non_null(strstr(err, "line 40002"));
    rp_profile_free(&p);
    free(t.s);
}

static void write_text(const char *name, const char *text)
{
    write_file(tmp_path(name), text, strlen(text), false);
}

/* The kind of each failure (the Ruby API raises a class per kind), and
 * the errno of one that could not open its file. */
static rp_read_failure failure_of(rp_profile_reader *r, const char *path, int *errno_out)
{
    rp_profile p;
    char err[RP_READ_ERROR_MAX];
    assert_int_equal(rp_profile_init(&p, true), 0);
    assert_int_equal(rp_profile_reader_read_file(r, &p, path, err), -1);
    rp_profile_free(&p);
    return rp_profile_reader_failure(r, errno_out);
}

static void test_failures_have_their_kind(void **state)
{
    (void)state;
    rp_profile_reader *r = rp_profile_reader_new();
    assert_non_null(r);
    int e = 0;
    assert_int_equal(failure_of(r, tmp_path("missing.json.gz"), &e), RP_READ_FAILED_IO);
    assert_int_equal(e, ENOENT);
    assert_int_equal(failure_of(r, tmp_path(""), &e), RP_READ_FAILED_IO);
    assert_int_equal(e, EISDIR);

    const char doc[] = "{\"mode\":\"cpu\",\"aggregated_samples\":[]}";
    write_gzip_members(tmp_path("ok.json.gz"), doc, strlen(doc), 1, NULL, 0);
    FILE *f = fopen(tmp_path("ok.json.gz"), "rb");
    char gz[256];
    size_t n = fread(gz, 1, sizeof(gz), f);
    fclose(f);
    write_file(tmp_path("cut.json.gz"), gz, n - 6, false);
    assert_int_equal(failure_of(r, tmp_path("cut.json.gz"), NULL), RP_READ_FAILED_GZIP);
    write_text("notjson.json", "not json {");
    assert_int_equal(failure_of(r, tmp_path("notjson.json"), NULL), RP_READ_FAILED_SYNTAX);
    write_text("array.json", "[1, 2]");
    assert_int_equal(failure_of(r, tmp_path("array.json"), NULL), RP_READ_FAILED_SHAPE);
    write_text("weight.json", "{\"aggregated_samples\":[[[[\"a.rb\",\"m\"]],-1]]}");
    assert_int_equal(failure_of(r, tmp_path("weight.json"), NULL), RP_READ_FAILED_SHAPE);

    /* the reader goes on reading good files after bad ones */
    rp_profile p;
    char err[RP_READ_ERROR_MAX];
    assert_int_equal(rp_profile_init(&p, true), 0);
    assert_int_equal(rp_profile_reader_read_file(r, &p, tmp_path("ok.json.gz"), err), 0);
    rp_profile_free(&p);
    rp_profile_reader_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_windows_cut_nothing),
        cmocka_unit_test(test_members_are_one_document),
        cmocka_unit_test(test_trailing_bytes_as_zlib),
        cmocka_unit_test(test_damage_is_named),
        cmocka_unit_test(test_failures_have_their_kind),
        cmocka_unit_test(test_errors_say_their_line),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
