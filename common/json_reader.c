/*
 * common/json_reader.c — pull parser. See json_reader.h.
 *
 * States say what may come next at the current depth; every token moves
 * to the next state, so malformed input is caught at the first wrong byte.
 */
#include "json_reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"
#include "vec.h"

enum state {
    EXPECT_VALUE,          /* top level, after ':' or after ',' in an array */
    EXPECT_VALUE_OR_CLOSE, /* just after '[' */
    EXPECT_KEY,            /* after ',' in an object */
    EXPECT_KEY_OR_CLOSE,   /* just after '{' */
    AFTER_VALUE,           /* a value ended: ',' or a close (or end of input) */
    DONE,
};

/* A stream keeps at least this much ahead of each token in its window,
 * so only longer tokens are ever cut; the window grows for them. Tests
 * and the fuzzer build with tiny ones, to cut every token. */
#ifndef RP_JR_STREAM_LOOKAHEAD
#define RP_JR_STREAM_LOOKAHEAD (64u << 10)
#endif
#ifndef RP_JR_STREAM_WINDOW
#define RP_JR_STREAM_WINDOW (1u << 20)
#endif
#define STREAM_LOOKAHEAD RP_JR_STREAM_LOOKAHEAD
#define STREAM_WINDOW RP_JR_STREAM_WINDOW

void rp_jr_init(rp_json_reader *r, const char *data, size_t len)
{
    rp_json_reader kept = *r; /* buffers, kept across documents */
    memset(r, 0, sizeof(*r));
    r->scratch = kept.scratch;
    r->scratch_cap = kept.scratch_cap;
    r->repaired = kept.repaired;
    r->repaired_cap = kept.repaired_cap;
    r->window = kept.window;
    r->window_cap = kept.window_cap;
    r->start = r->p = data;
    r->end = data + len;
    r->state = EXPECT_VALUE;
}

int rp_jr_init_stream(rp_json_reader *r, rp_jr_fill_fn fill, void *ctx, const char *first,
                      size_t len)
{
    if (r->window_cap < STREAM_WINDOW || r->window_cap < len) {
        size_t cap = len > STREAM_WINDOW ? len : STREAM_WINDOW;
        char *grown = realloc(r->window, cap);
        if (!grown)
            return -1;
        r->window = grown;
        r->window_cap = cap;
    }
    memcpy(r->window, first, len);
    rp_jr_init(r, r->window, len);
    r->fill = fill;
    r->fill_ctx = ctx;
    return 0;
}

void rp_jr_free(rp_json_reader *r)
{
    free(r->scratch);
    free(r->repaired);
    free(r->window);
    r->scratch = r->repaired = r->window = NULL;
    r->scratch_cap = r->repaired_cap = r->window_cap = 0;
}

/* Streams: moves what is left of the window from `keep` on to its start
 * and appends the source's next bytes, growing the window when what is
 * kept fills half of it. Returns whether bytes were added. */
static bool refill(rp_json_reader *r, const char *keep)
{
    if (!r->fill || r->at_eof || r->source_status)
        return false;
    for (const char *q = r->start; q < keep && (q = memchr(q, '\n', (size_t)(keep - q))); q++)
        r->lines_before++;
    size_t kept = (size_t)(r->end - keep), at = (size_t)(r->p - keep);
    if (r->window && keep != r->window)
        memmove(r->window, keep, kept);
    size_t want = r->window_cap < STREAM_WINDOW ? STREAM_WINDOW : r->window_cap;
    while (kept > want / 2)
        want *= 2;
    if (want != r->window_cap) {
        char *grown = realloc(r->window, want);
        if (!grown) {
            r->source_status = -1;
            r->error = "out of memory";
            return false;
        }
        r->window = grown;
        r->window_cap = want;
    }
    r->start = r->window;
    r->p = r->window + at;
    r->end = r->window + kept;
    long n = r->fill(r->fill_ctx, r->window + kept, r->window_cap - kept);
    if (n < 0)
        r->source_status = n;
    else if (n == 0)
        r->at_eof = true;
    else
        r->end += n;
    return n > 0;
}

static rp_jtok error(rp_json_reader *r, const char *message)
{
    r->error = message;
    r->state = DONE;
    return RP_JT_ERROR;
}

/* Where the window's end stopped a token: in a stream, it may go on. */
static bool at_window_end(rp_json_reader *r, const char *p, size_t need)
{
    bool short_of = (size_t)(r->end - p) < need;
    r->hit_end = r->hit_end || short_of;
    return short_of;
}

static void skip_space(rp_json_reader *r)
{
    const char *p = r->p;
    while (p < r->end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    at_window_end(r, p, 1);
    r->p = p;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool read_hex4(const char *p, const char *end, unsigned *out)
{
    if (end - p < 4)
        return false;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hex_value(p[i]);
        if (h < 0)
            return false;
        v = v << 4 | (unsigned)h;
    }
    *out = v;
    return true;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12);
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | cp >> 18);
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* One escape sequence at *pp (after the backslash) into o; returns bytes
 * written, or 0 when the escape is invalid. */
static size_t unescape(const char **pp, const char *end, char *o)
{
    const char *p = *pp;
    char c = *p++;
    size_t n = 1;
    switch (c) {
    case '"': *o = '"'; break;
    case '\\': *o = '\\'; break;
    case '/': *o = '/'; break;
    case 'b': *o = '\b'; break;
    case 'f': *o = '\f'; break;
    case 'n': *o = '\n'; break;
    case 'r': *o = '\r'; break;
    case 't': *o = '\t'; break;
    case 'u': {
        unsigned cp, low;
        if (!read_hex4(p, end, &cp))
            return 0;
        p += 4;
        if (cp >= 0xd800 && cp <= 0xdbff && end - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
            read_hex4(p + 2, end, &low) && low >= 0xdc00 && low <= 0xdfff) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
            p += 6;
        } else if (cp >= 0xd800 && cp <= 0xdfff) {
            cp = 0xfffd; /* a lone surrogate is no character */
        }
        n = put_utf8(o, cp);
        break;
    }
    default:
        return 0;
    }
    *pp = p;
    return n;
}

/* The current string, made valid UTF-8 as the JSON writer writes it:
 * each byte that starts no valid sequence becomes U+FFFD. */
static rp_jtok repair_utf8(rp_json_reader *r, rp_jtok kind)
{
    if (rp_utf8_valid(r->str, r->str_len))
        return kind;
    size_t room = 3 * r->str_len; /* U+FFFD is 3 bytes per byte at most */
    if (RP_VEC_RESERVE(r->repaired, r->repaired_cap, room) != 0)
        return error(r, "out of memory");
    r->str_len = rp_utf8_repair(r->str, r->str_len, r->repaired);
    r->str = r->repaired;
    return kind;
}

/* A string starting after its opening quote. Strings without escapes are
 * returned in place; others are unescaped into the scratch buffer. Either
 * is repaired when it is not valid UTF-8 (rare: checked only when a byte
 * has its high bit set). */
static rp_jtok read_string(rp_json_reader *r, rp_jtok kind)
{
    const char *p = r->p, *end = r->end;
    unsigned char high = 0;
    while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
        high |= (unsigned char)*p++;
    if (p < end && *p == '"') {
        r->str = r->p;
        r->str_len = (size_t)(p - r->p);
        r->p = p + 1;
        return high & 0x80 ? repair_utf8(r, kind) : kind;
    }
    /* escapes: at most as long as the rest of the input */
    size_t plain = (size_t)(p - r->p);
    if (RP_VEC_RESERVE(r->scratch, r->scratch_cap, plain + (size_t)(end - p) + 4) != 0)
        return error(r, "out of memory");
    char *o = r->scratch;
    memcpy(o, r->p, plain);
    o += plain;
    while (p < end && *p != '"') {
        if ((unsigned char)*p < 0x20)
            return error(r, "control character in a string");
        if (*p == '\\') {
            p++;
            /* \uD83D\uDE00: twelve bytes decide what an escape is */
            at_window_end(r, p, 12);
            size_t n = p < end ? unescape(&p, end, o) : 0;
            if (n == 0)
                return error(r, "invalid escape in a string");
            o += n;
        } else {
            *o++ = *p++;
        }
    }
    if (at_window_end(r, p, 1))
        return error(r, "unterminated string");
    r->str = r->scratch;
    r->str_len = (size_t)(o - r->scratch);
    r->p = p + 1;
    return repair_utf8(r, kind);
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* A number by the JSON grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static rp_jtok read_number(rp_json_reader *r)
{
    const char *p = r->p, *end = r->end, *start = p;
    if (p < end && *p == '-')
        p++;
    if (p >= end || !is_digit(*p))
        return error(r, "invalid number");
    if (*p == '0')
        p++;
    else
        while (p < end && is_digit(*p))
            p++;
    if (p < end && *p == '.') {
        p++;
        if (p >= end || !is_digit(*p))
            return error(r, "invalid number");
        while (p < end && is_digit(*p))
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || !is_digit(*p))
            return error(r, "invalid number");
        while (p < end && is_digit(*p))
            p++;
    }
    at_window_end(r, p, 1); /* digits may follow */
    r->num = start;
    r->num_len = (size_t)(p - start);
    r->p = p;
    return RP_JT_NUMBER;
}

static rp_jtok read_literal(rp_json_reader *r, const char *word, rp_jtok tok)
{
    size_t n = strlen(word);
    if (at_window_end(r, r->p, n) || memcmp(r->p, word, n) != 0)
        return error(r, "invalid literal");
    r->p += n;
    return tok;
}

static rp_jtok open_container(rp_json_reader *r, bool object)
{
    if (r->depth >= RP_JR_MAX_DEPTH)
        return error(r, "maximum nesting depth exceeded");
    r->in_object[++r->depth] = object;
    r->state = object ? EXPECT_KEY_OR_CLOSE : EXPECT_VALUE_OR_CLOSE;
    return object ? RP_JT_BEGIN_OBJECT : RP_JT_BEGIN_ARRAY;
}

static rp_jtok read_value(rp_json_reader *r)
{
    char c = *r->p;
    r->state = AFTER_VALUE;
    switch (c) {
    case '{':
        r->p++;
        return open_container(r, true);
    case '[':
        r->p++;
        return open_container(r, false);
    case '"':
        r->p++;
        return read_string(r, RP_JT_STRING);
    case 't':
        return read_literal(r, "true", RP_JT_TRUE);
    case 'f':
        return read_literal(r, "false", RP_JT_FALSE);
    case 'n':
        return read_literal(r, "null", RP_JT_NULL);
    default:
        if (c == '-' || is_digit(c))
            return read_number(r);
        return error(r, "unexpected character");
    }
}

static rp_jtok close_container(rp_json_reader *r, char c)
{
    bool object = r->in_object[r->depth];
    if (r->depth == 0 || c != (object ? '}' : ']'))
        return error(r, object ? "expected ',' or '}'" : "expected ',' or ']'");
    r->p++;
    r->depth--;
    r->state = AFTER_VALUE;
    return object ? RP_JT_END_OBJECT : RP_JT_END_ARRAY;
}

static rp_jtok read_key(rp_json_reader *r)
{
    if (*r->p != '"')
        return error(r, "expected a string key");
    r->p++;
    if (read_string(r, RP_JT_KEY) == RP_JT_ERROR)
        return RP_JT_ERROR;
    skip_space(r);
    if (r->p >= r->end || *r->p != ':')
        return error(r, "expected ':' after a key");
    r->p++;
    r->state = EXPECT_VALUE;
    return RP_JT_KEY;
}

static rp_jtok next_token(rp_json_reader *r)
{
    if (r->state == DONE)
        return r->error ? RP_JT_ERROR : RP_JT_END;
    skip_space(r);
    if (r->p >= r->end) {
        if (r->state == AFTER_VALUE && r->depth == 0) {
            r->state = DONE;
            return RP_JT_END;
        }
        return error(r, "unexpected end of input");
    }
    char c = *r->p;
    switch (r->state) {
    case EXPECT_VALUE:
        return read_value(r);
    case EXPECT_VALUE_OR_CLOSE:
        return c == ']' ? close_container(r, c) : read_value(r);
    case EXPECT_KEY_OR_CLOSE:
        return c == '}' ? close_container(r, c) : read_key(r);
    case EXPECT_KEY:
        return read_key(r);
    case AFTER_VALUE:
        if (r->depth == 0)
            return error(r, "unexpected data after the document");
        if (c == ',') {
            r->p++;
            skip_space(r);
            if (r->p >= r->end)
                return error(r, "unexpected end of input");
            if (r->in_object[r->depth])
                return read_key(r);
            return read_value(r);
        }
        return close_container(r, c);
    default:
        return error(r, "internal state");
    }
}

/* A stream: the window keeps a lookahead, and a token that ran into its
 * end is read again, from where it began, once more of it is there. */
static rp_jtok next_streamed(rp_json_reader *r)
{
    if ((size_t)(r->end - r->p) < STREAM_LOOKAHEAD)
        refill(r, r->p);
    for (;;) {
        const char *p0 = r->p;
        uint8_t state0 = r->state;
        int depth0 = r->depth;
        r->hit_end = false;
        rp_jtok tok = next_token(r);
        if (!r->hit_end || r->at_eof || r->source_status)
            return r->source_status ? error(r, r->error ? r->error : "cannot read") : tok;
        r->p = p0;
        r->state = state0;
        r->depth = depth0;
        r->error = NULL;
        refill(r, p0);
    }
}

rp_jtok rp_jr_next(rp_json_reader *r)
{
    return r->fill ? next_streamed(r) : next_token(r);
}

bool rp_jr_skip(rp_json_reader *r, rp_jtok first)
{
    if (first == RP_JT_ERROR)
        return false;
    if (first != RP_JT_BEGIN_OBJECT && first != RP_JT_BEGIN_ARRAY)
        return true;
    int depth = r->depth - 1;
    while (r->depth > depth) {
        if (rp_jr_next(r) == RP_JT_ERROR)
            return false;
    }
    return true;
}

const char *rp_jr_peek_flat_array(const rp_json_reader *r, size_t *len)
{
    const char *p = r->p, *end = r->end;
    while (p < end) {
        char c = *p;
        if (c == '"') {
            /* a string: to its closing quote, which no backslash may hide */
            const char *close = memchr(p + 1, '"', (size_t)(end - p - 1));
            if (!close || memchr(p + 1, '\\', (size_t)(close - p - 1)))
                return NULL;
            p = close + 1;
        } else if (c == ']') {
            *len = (size_t)(p - r->p);
            return r->p;
        } else if (c == '[' || c == '{' || c == '}') {
            return NULL;
        } else {
            p++;
        }
    }
    return NULL;
}

void rp_jr_skip_flat_array(rp_json_reader *r, size_t len)
{
    r->p += len + 1;
    r->depth--;
    r->state = AFTER_VALUE;
}

bool rp_jr_int(const rp_json_reader *r, int64_t *out)
{
    const char *p = r->num, *end = r->num + r->num_len;
    bool negative = p < end && *p == '-';
    if (negative)
        p++;
    uint64_t v = 0;
    for (; p < end; p++) {
        if (!is_digit(*p))
            return false; /* fraction or exponent */
        if (v > (UINT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (negative ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
        return false;
    *out = negative ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

double rp_jr_double(const rp_json_reader *r)
{
    char buf[64];
    size_t n = r->num_len < sizeof(buf) - 1 ? r->num_len : sizeof(buf) - 1;
    memcpy(buf, r->num, n);
    buf[n] = '\0';
    return strtod(buf, NULL);
}

void rp_jr_error(const rp_json_reader *r, char *buf, size_t size)
{
    long line = 1 + r->lines_before;
    for (const char *p = r->start; p < r->p && p < r->end; p++)
        line += *p == '\n';
    snprintf(buf, size, "line %ld: %s", line, r->error ? r->error : "unexpected token");
}
