/*
 * common/utf8.h — what counts as UTF-8 in a profile.
 *
 * Owns: the one rule for strings that are not valid UTF-8 (Ruby hands the
 * agent such paths and labels now and then): each byte that does not
 * start a valid sequence stands for U+FFFD. The JSON writer writes them
 * so, the JSON reader reads them so, and a profile therefore reads back as
 * it was written.
 */
#ifndef RPERF_COMMON_UTF8_H
#define RPERF_COMMON_UTF8_H

#include <stddef.h>
#include <string.h>
#include <stdint.h>

#define RP_UTF8_REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
static inline size_t rp_utf8_sequence_length(const unsigned char *s, size_t avail)
{
    unsigned char c = s[0];
    size_t n;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (avail < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    /* overlong forms, surrogates and values past U+10FFFF */
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

/* Whether s[0..len) is valid UTF-8. */
static inline int rp_utf8_valid(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t n = rp_utf8_sequence_length(u + i, len - i);
        if (n == 0)
            return 0;
        i += n;
    }
    return 1;
}

/* Writes s[0..len) to `out` with each byte that starts no valid sequence
 * replaced by U+FFFD; `out` has room for 3 * len bytes. Returns the
 * length written. */
static inline size_t rp_utf8_repair(const char *s, size_t len, char *out)
{
    const unsigned char *u = (const unsigned char *)s;
    char *o = out;
    for (size_t i = 0; i < len;) {
        size_t n = rp_utf8_sequence_length(u + i, len - i);
        if (n == 0) {
            memcpy(o, RP_UTF8_REPLACEMENT, 3);
            o += 3;
            i++;
        } else {
            memcpy(o, u + i, n);
            o += n;
            i += n;
        }
    }
    return (size_t)(o - out);
}

#endif
