/*
 * common/json_writer.c — streaming JSON output. See json_writer.h.
 */
#include "json_writer.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

void rp_json_init(rp_json *j, rp_out *out)
{
    memset(j, 0, sizeof(*j));
    j->out = out;
}

/* Emits the separator a new value needs at the current position. */
static void before_value(rp_json *j)
{
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    if (j->need_comma[j->depth])
        rp_out_write(j->out, ",", 1);
    j->need_comma[j->depth] = true;
}

static void open_container(rp_json *j, char c)
{
    before_value(j);
    rp_out_write(j->out, &c, 1);
    if (j->depth < RP_JSON_MAX_DEPTH)
        j->depth++;
    j->need_comma[j->depth] = false;
}

static void close_container(rp_json *j, char c)
{
    rp_out_write(j->out, &c, 1);
    if (j->depth > 0)
        j->depth--;
}

void rp_json_begin_object(rp_json *j) { open_container(j, '{'); }
void rp_json_end_object(rp_json *j) { close_container(j, '}'); }
void rp_json_begin_array(rp_json *j) { open_container(j, '['); }
void rp_json_end_array(rp_json *j) { close_container(j, ']'); }

/* Printable ASCII other than '"' and '\\' (and, for HTML, '<' and '&'):
 * written as it is. With '<' escaped (but in "</", written "<\/") no tag
 * and no comment can begin, so '>' may stay. */
static bool is_plain(unsigned char c, bool html_safe)
{
    if (html_safe && (c == '<' || c == '&'))
        return false;
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

static void write_escaped(rp_out *out, const char *str, size_t len, bool html_safe)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    size_t run = 0; /* start of the pending run of bytes copied verbatim */
    size_t i = 0;
    while (i < len) {
        /* Paths and method names are mostly plain: skip over them fast. */
        while (i < len && is_plain(s[i], html_safe))
            i++;
        if (i == len)
            break;
        unsigned char c = s[i];
        const char *esc = NULL;
        char ubuf[7];
        size_t seq = 1;
        if (c == '"')
            esc = "\\\"";
        else if (c == '\\')
            esc = "\\\\";
        else if (c == '\n')
            esc = "\\n";
        else if (c == '\t')
            esc = "\\t";
        else if (c == '\r')
            esc = "\\r";
        else if (c == '<' && i + 1 < len && s[i + 1] == '/') {
            /* "</" as "<\/": no end tag for the HTML parser, the same
             * characters for JSON (the form pages and their tests expect) */
            esc = "<\\/";
            seq = 2;
        } else if (c < 0x20 || c == '<' || c == '&') {
            memcpy(ubuf, "\\u00", 4);
            ubuf[4] = hex[c >> 4];
            ubuf[5] = hex[c & 15];
            ubuf[6] = '\0';
            esc = ubuf;
        } else if (c >= 0x80) {
            seq = rp_utf8_sequence_length(s + i, len - i);
            if (seq == 0) {
                esc = RP_UTF8_REPLACEMENT;
                seq = 1;
            }
        }
        if (esc) {
            rp_out_write(out, s + run, i - run);
            rp_out_puts(out, esc);
            i += seq;
            run = i;
        } else {
            i += seq;
        }
    }
    rp_out_write(out, s + run, len - run);
}

void rp_json_key(rp_json *j, const char *key)
{
    before_value(j);
    rp_out_write(j->out, "\"", 1);
    write_escaped(j->out, key, strlen(key), j->html_safe);
    rp_out_write(j->out, "\":", 2);
    j->after_key = true;
}

void rp_json_string(rp_json *j, const char *s, size_t len)
{
    before_value(j);
    rp_out_write(j->out, "\"", 1);
    write_escaped(j->out, s, len, j->html_safe);
    rp_out_write(j->out, "\"", 1);
}

void rp_json_cstring(rp_json *j, const char *s)
{
    rp_json_string(j, s, strlen(s));
}

/* v in decimal, at the end of buf[24]; returns where it starts. Not
 * snprintf: the profiles' arrays are mostly integers, and formatting them
 * through printf was a tenth of a conversion's time. */
static const char *decimal(char buf[24], int64_t v)
{
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    char *p = buf + 24;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    return p;
}

void rp_json_int(rp_json *j, int64_t v)
{
    char buf[24];
    const char *text = decimal(buf, v);
    before_value(j);
    rp_out_write(j->out, text, (size_t)(buf + sizeof(buf) - text));
}

void rp_json_null(rp_json *j)
{
    before_value(j);
    rp_out_puts(j->out, "null");
}

void rp_json_raw(rp_json *j, const char *text)
{
    rp_json_raw_len(j, text, strlen(text));
}

void rp_json_raw_len(rp_json *j, const char *text, size_t len)
{
    before_value(j);
    rp_out_write(j->out, text, len);
}

void rp_json_bool(rp_json *j, bool v)
{
    before_value(j);
    rp_out_puts(j->out, v ? "true" : "false");
}

void rp_json_double(rp_json *j, double v)
{
    char buf[32];
    /* JSON has no NaN or infinity; such a ratio is reported as 0. */
    int n = snprintf(buf, sizeof(buf), "%.17g", isfinite(v) ? v : 0.0);
    before_value(j);
    rp_out_write(j->out, buf, (size_t)n);
}

void rp_json_member_int(rp_json *j, const char *key, int64_t v)
{
    rp_json_key(j, key);
    rp_json_int(j, v);
}

void rp_json_member_cstring(rp_json *j, const char *key, const char *s)
{
    rp_json_key(j, key);
    rp_json_cstring(j, s);
}

char *rp_json_to_text(bool (*write)(rp_json *j, const void *ctx), const void *ctx)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    rp_out *out = fp ? rp_out_stream(fp, true) : NULL;
    if (!out) {
        if (fp)
            fclose(fp);
        free(text);
        return NULL;
    }
    rp_json j;
    rp_json_init(&j, out);
    bool ok = write(&j, ctx);
    if (rp_out_close(out) != 0 || !ok) {
        free(text);
        return NULL;
    }
    return text;
}
