/*
 * tests/unit/helpers.h — building small profiles by hand in unit tests.
 */
#ifndef RPERF_TESTS_HELPERS_H
#define RPERF_TESTS_HELPERS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../../common/out.h"
#include "../../profile/profile.h"
#include "../../profile/profile_read.h"

/* Adds to `table` a sample whose frames come from `ap` (see add_sample). */
static inline void add_sample_v(rp_profile *p, rp_sample_table *table, int64_t weight, uint32_t thread_seq,
                                uint32_t ls, va_list ap)
{
    uint32_t ids[64];
    uint32_t depth = 0;
    const char *spec;
    while ((spec = va_arg(ap, const char *)) != NULL) {
        const char *bar = strchr(spec, '|');
        const char *line_bar = strchr(bar + 1, '|');
        uint32_t path = rp_profile_string(p, spec, (size_t)(bar - spec));
        size_t label_len = line_bar ? (size_t)(line_bar - bar - 1) : strlen(bar + 1);
        uint32_t label = rp_profile_string(p, bar + 1, label_len);
        unsigned line = 0, first_line = 0;
        if (line_bar && sscanf(line_bar + 1, "%u|%u", &line, &first_line) < 1)
            abort();
        ids[depth++] = rp_profile_line_frame(p, path, label, line, first_line);
    }
    uint32_t stack = rp_profile_stack(p, ids, depth);
    if (rp_sample_table_add(table, stack, thread_seq, ls, weight) != RP_SAMPLE_OK)
        abort();
}

/* Adds a sample whose frames are given leaf first as "path|label" or
 * "path|label|line|first_line" strings, terminated by NULL. Label set id
 * `ls` must exist in the profile. */
static inline void add_sample(rp_profile *p, int64_t weight, uint32_t thread_seq, uint32_t ls, ...)
{
    va_list ap;
    va_start(ap, ls);
    add_sample_v(p, &p->samples, weight, thread_seq, ls, ap);
    va_end(ap);
}

/* The same into the table of measure `m` (allocation sampling). */
static inline void add_measure_sample(rp_profile *p, rp_measure m, int64_t weight, uint32_t thread_seq,
                                      uint32_t ls, ...)
{
    va_list ap;
    va_start(ap, ls);
    add_sample_v(p, rp_profile_table(p, m), weight, thread_seq, ls, ap);
    va_end(ap);
}

/* A profile with lines: method m (first line 2) hot at line 3 (3 units)
 * and line 5 (1 unit), and the C method Kernel#sleep (half a unit), all
 * under <main> at line 9 (first line 1), in a.rb. */
static inline void make_two_line_profile(rp_profile *p, int64_t unit)
{
    if (rp_profile_init(p, true) != 0)
        abort();
    p->meta.frequency = 1000;
    add_sample(p, 3 * unit, 1, 0, "a.rb|m|3|2", "a.rb|<main>|9|1", NULL);
    add_sample(p, unit, 1, 0, "a.rb|m|5|2", "a.rb|<main>|9|1", NULL);
    add_sample(p, unit / 2, 1, 0, "<C method>|Kernel#sleep", "a.rb|<main>|9|1", NULL);
}

/* Label set with one pair. */
static inline uint32_t label_set1(rp_profile *p, const char *key, const char *value)
{
    rp_label l = {rp_profile_cstring(p, key), rp_profile_cstring(p, value)};
    return rp_profile_label_set(p, &l, 1);
}

/* Runs `write` into a memory buffer and returns the text (caller frees). */
#define CAPTURE_OUTPUT(text_var, out_var, ...)                  \
    do {                                                        \
        size_t cap_len_;                                        \
        FILE *cap_fp_ = open_memstream(&(text_var), &cap_len_); \
        rp_out *out_var = rp_out_stream(cap_fp_, true);         \
        __VA_ARGS__;                                            \
        if (rp_out_close(out_var) != 0)                         \
            abort();                                            \
    } while (0)

/* Writes a test file, gzip-compressed when `gzip` (cmocka asserts). */
static inline void write_file(const char *path, const void *data, size_t len, bool gzip)
{
    if (gzip) {
        gzFile gz = gzopen(path, "wb");
        assert_non_null(gz);
        if (len)
            assert_int_equal(gzwrite(gz, data, (unsigned)len), (int)len);
        gzclose(gz);
    } else {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fwrite(data, 1, len, f);
        fclose(f);
    }
}

/* Reads `json` written to `path` (plain) and expects the reader to refuse
 * it with an error containing `expect`. */
static inline void expect_read_error_at(const char *path, const char *json, const char *expect)
{
    rp_profile p;
    char err[RP_READ_ERROR_MAX] = "";
    write_file(path, json, strlen(json), false);
    assert_int_equal(rp_profile_init(&p, true), 0);
    assert_int_equal(rp_profile_read_file(&p, path, err), -1);
    if (!strstr(err, expect))
        fail_msg("error \"%s\" does not mention \"%s\" for %s", err, expect, json);
    rp_profile_free(&p);
}

/* A scratch directory for one test program: make_tmpdir and remove_tmpdir
 * are the cmocka group's setup and teardown, tmp_path(name) a file in it. */
#define RP_TEST_TMPDIR(prefix)                                  \
    static char tmpdir[] = "/tmp/" prefix "-XXXXXX";            \
    static int make_tmpdir(void **state)                        \
    {                                                           \
        (void)state;                                            \
        return mkdtemp(tmpdir) ? 0 : -1;                        \
    }                                                           \
    static int remove_tmpdir(void **state)                      \
    {                                                           \
        (void)state;                                            \
        char cmd[128];                                          \
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);      \
        return system(cmd);                                     \
    }                                                           \
    static const char *tmp_path(const char *name)               \
    {                                                           \
        static char path[256];                                  \
        snprintf(path, sizeof(path), "%s/%s", tmpdir, name);    \
        return path;                                            \
    }

#endif
