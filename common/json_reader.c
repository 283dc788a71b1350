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

void rp_jr_init(rp_json_reader *r, const char *data, size_t len)
{
    char *scratch = r->scratch, *repaired = r->repaired;
    size_t cap = r->scratch_cap, repaired_cap = r->repaired_cap;
    memset(r, 0, sizeof(*r));
    r->scratch = scratch; /* kept across documents */
    r->scratch_cap = cap;
    r->repaired = repaired;
    r->repaired_cap = repaired_cap;
    r->start = r->p = data;
    r->end = data + len;
    r->state = EXPECT_VALUE;
}

void rp_jr_free(rp_json_reader *r)
{
    free(r->scratch);
    free(r->repaired);
    r->scratch = r->repaired = NULL;
    r->scratch_cap = r->repaired_cap = 0;
}

static rp_jtok error(rp_json_reader *r, const char *message)
{
    r->error = message;
    r->state = DONE;
    return RP_JT_ERROR;
}

static void skip_space(rp_json_reader *r)
{
    const char *p = r->p;
    while (p < r->end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
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
            size_t n = p < end ? unescape(&p, end, o) : 0;
            if (n == 0)
                return error(r, "invalid escape in a string");
            o += n;
        } else {
            *o++ = *p++;
        }
    }
    if (p >= end)
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
    r->num = start;
    r->num_len = (size_t)(p - start);
    r->p = p;
    return RP_JT_NUMBER;
}

static rp_jtok read_literal(rp_json_reader *r, const char *word, rp_jtok tok)
{
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
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

rp_jtok rp_jr_next(rp_json_reader *r)
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
    int line = 1;
    for (const char *p = r->start; p < r->p && p < r->end; p++)
        line += *p == '\n';
    snprintf(buf, size, "line %d: %s", line, r->error ? r->error : "unexpected token");
}
