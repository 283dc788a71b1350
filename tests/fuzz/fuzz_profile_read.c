/*
 * tests/fuzz/fuzz_profile_read.c — libFuzzer target for the profile reader.
 *
 * Feeds arbitrary bytes to the reader as a profile document and checks the
 * reader's promise: every input is either rejected with a message, or read
 * into a profile that is written, read back and written again to the same
 * bytes; and read as a file (streamed through the reader's window, which
 * scripts/fuzz makes tiny so that it cuts every token) it is rejected or
 * read the same. Whatever is accepted also goes through everything downstream:
 * merge, the stat summary and every output format. Built by scripts/fuzz
 * with clang; the same entry point replays tests/fuzz/seeds and
 * tests/fuzz/regressions in `meson test` (replay_main.c), so a broken
 * promise or a crash found once stays fixed.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../profile/encode/format.h"
#include "../../profile/merge.h"
#include "../../profile/encode/stat.h"
#include "../../profile/profile_read.h"
#include "../../profile/profile_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void broken_promise(const char *what)
{
    fprintf(stderr, "fuzz_profile_read: %s\n", what);
    abort();
}

static void encode_everything(const rp_profile *p)
{
    FILE *sink = fopen("/dev/null", "w");
    rp_out *out = sink ? rp_out_stream(sink, true) : NULL;
    if (!out)
        return;
    const rp_encode_opts o = RP_ENCODE_OPTS_DEFAULT;
    for (size_t i = 0; i < rp_format_count; i++)
        rp_formats[i].encode(p, out, &o);
    rp_stat_write(p, out, true, o.top);
    rp_out_close(out);
}

/* `p` as JSON in a malloc'ed buffer (NULL when out of memory). */
static char *to_json(const rp_profile *p, size_t *len)
{
    char *text = NULL;
    FILE *fp = open_memstream(&text, len);
    rp_out *out = fp ? rp_out_stream(fp, true) : NULL;
    if (!out)
        return NULL;
    rp_profile_write_json(p, out);
    if (rp_out_close(out) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* A profile that was read writes, re-reads and writes the same bytes. */
static void check_round_trip(const rp_profile *p)
{
    size_t len1, len2;
    char *first = to_json(p, &len1);
    if (!first)
        return;
    rp_profile back;
    char err[RP_READ_ERROR_MAX] = "";
    if (rp_profile_init(&back, true) != 0) {
        free(first);
        return;
    }
    if (rp_profile_read_buffer(&back, first, len1, err) != 0) {
        fprintf(stderr, "fuzz_profile_read: %s\n", err);
        broken_promise("a profile it wrote cannot be read back");
    }
    char *second = to_json(&back, &len2);
    if (second && (len1 != len2 || memcmp(first, second, len1) != 0))
        broken_promise("a profile read back writes different bytes");
    free(first);
    free(second);
    rp_profile_free(&back);
}

/* The input as a file, read streamed: accepted exactly when it was read
 * from memory, and then into the same profile. */
static void check_streamed(const uint8_t *data, size_t size, const rp_profile *whole, bool read)
{
    int fd = memfd_create("fuzz-profile", 0);
    if (fd < 0)
        return;
    char path[64], err[RP_READ_ERROR_MAX] = "";
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    rp_profile streamed;
    if ((size_t)write(fd, data, size) != size || rp_profile_init(&streamed, true) != 0) {
        close(fd);
        return;
    }
    bool ok = rp_profile_read_file(&streamed, path, err) == 0;
    close(fd);
    if (ok != read && !(size == 0 && !ok)) {
        fprintf(stderr, "fuzz_profile_read: streamed: %s\n", ok ? "accepted" : err);
        broken_promise("a file is read otherwise than the same bytes in memory");
    }
    if (ok) {
        size_t a_len, b_len;
        char *a = to_json(whole, &a_len), *b = to_json(&streamed, &b_len);
        if (a && b && (a_len != b_len || memcmp(a, b, a_len) != 0))
            broken_promise("a file streamed reads into another profile than in memory");
        free(a);
        free(b);
    }
    rp_profile_free(&streamed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rp_profile one, merged;
    char err[RP_READ_ERROR_MAX] = "";
    if (rp_profile_init(&one, true) != 0)
        return 0;
    bool read = rp_profile_read_buffer(&one, (const char *)data, size, err) == 0;
    check_streamed(data, size, &one, read);
    if (!read) {
        if (err[0] == '\0')
            broken_promise("an input was rejected without a message");
    } else {
        check_round_trip(&one);
        if (rp_profile_init(&merged, true) == 0) {
            char merge_err[RP_MERGE_ERROR_MAX];
            /* twice: the second merge re-maps onto existing tables */
            if (rp_merge_into(&merged, &one, 0, true, merge_err) == 0 &&
                rp_merge_into(&merged, &one, 1, true, merge_err) == 0)
                encode_everything(&merged);
            rp_profile_free(&merged);
        }
    }
    rp_profile_free(&one);
    return 0;
}
