/*
 * profile/meta_read.c — the head of a profile file. See meta_read.h.
 */
#include "meta_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/gzip_file.h"
#include "../common/json_reader.h"
#include "../common/json_writer.h"
#include "schema.h"

/* Enough for any meta and summary: a file that needs more is not one. */
#define HEAD_MAX_BYTES (8u << 20)

struct head_source {
    rp_gzip_file gz;
    char err[RP_READ_ERROR_MAX];
    long status;
};

static long fill(void *ctx, char *buf, size_t room)
{
    struct head_source *s = ctx;
    long n = rp_gzip_file_read(&s->gz, buf, room, s->err, sizeof(s->err));
    if (n < 0)
        s->status = n;
    return n;
}

/* The value whose first token is `t`, written again to `j`. */
static bool copy_value(rp_json_reader *r, rp_jtok t, rp_json *j, int depth)
{
    if (depth > RP_JR_MAX_DEPTH)
        return false;
    switch (t) {
    case RP_JT_STRING:
        rp_json_string(j, r->str, r->str_len);
        return true;
    case RP_JT_NUMBER: {
        char num[64];
        if (r->num_len >= sizeof(num))
            return false;
        memcpy(num, r->num, r->num_len);
        num[r->num_len] = '\0';
        rp_json_raw(j, num);
        return true;
    }
    case RP_JT_TRUE:
    case RP_JT_FALSE:
        rp_json_bool(j, t == RP_JT_TRUE);
        return true;
    case RP_JT_NULL:
        rp_json_null(j);
        return true;
    case RP_JT_BEGIN_OBJECT:
        rp_json_begin_object(j);
        while ((t = rp_jr_next(r)) == RP_JT_KEY) {
            char *key = strndup(r->str, r->str_len);
            if (!key)
                return false;
            rp_json_key(j, key);
            free(key);
            if (!copy_value(r, rp_jr_next(r), j, depth + 1))
                return false;
        }
        rp_json_end_object(j);
        return t == RP_JT_END_OBJECT;
    case RP_JT_BEGIN_ARRAY:
        rp_json_begin_array(j);
        while ((t = rp_jr_next(r)) != RP_JT_END_ARRAY)
            if (t == RP_JT_ERROR || !copy_value(r, t, j, depth + 1))
                return false;
        rp_json_end_array(j);
        return true;
    default:
        return false;
    }
}

struct value_copy {
    rp_json_reader *r;
    rp_jtok first;
};

static bool write_copy(rp_json *j, const void *ctx)
{
    const struct value_copy *c = ctx;
    return copy_value(c->r, c->first, j, 0);
}

/* The value whose first token is `t` as malloc'd JSON text, or NULL. */
static char *value_text(rp_json_reader *r, rp_jtok t)
{
    struct value_copy c = {r, t};
    return rp_json_to_text(write_copy, &c);
}

/* The leading members, up to the first that is neither. */
static int read_head(rp_json_reader *r, char **meta, char **summary)
{
    if (rp_jr_next(r) != RP_JT_BEGIN_OBJECT)
        return 0;
    while (rp_jr_next(r) == RP_JT_KEY) {
        char **slot = r->str_len == strlen(RP_KEY_META) && memcmp(r->str, RP_KEY_META, r->str_len) == 0 ? meta
                      : r->str_len == strlen(RP_KEY_SUMMARY) && memcmp(r->str, RP_KEY_SUMMARY, r->str_len) == 0
                          ? summary
                          : NULL;
        if (!slot || *slot)
            break;
        rp_jtok t = rp_jr_next(r);
        if (t != RP_JT_BEGIN_OBJECT || !(*slot = value_text(r, t)))
            return 0;
        if (*meta && *summary)
            break;
    }
    return *meta || *summary ? 1 : 0;
}

int rp_meta_read(const char *path, char **meta, char **summary, char err[RP_READ_ERROR_MAX])
{
    *meta = *summary = NULL;
    struct head_source s = {.status = 0};
    if (rp_gzip_file_open(&s.gz, path, HEAD_MAX_BYTES, false, err, RP_READ_ERROR_MAX) != 0) {
        rp_gzip_file_close(&s.gz);
        return -1;
    }
    rp_json_reader r = {0};
    int rc;
    if (rp_jr_init_stream(&r, fill, &s, NULL, 0) != 0) {
        snprintf(err, RP_READ_ERROR_MAX, "out of memory");
        rc = -1;
    } else {
        rc = read_head(&r, meta, summary);
        rp_jr_free(&r);
    }
    if (rc == 0 || (s.status != 0 && !(*meta && *summary))) {
        free(*meta);
        free(*summary);
        *meta = *summary = NULL;
        if (s.status != 0 && s.status != RP_GZ_ASK_ZLIB) {
            snprintf(err, RP_READ_ERROR_MAX, "%s", s.err);
            rc = -1;
        } else {
            rc = 0;
        }
    }
    rp_gzip_file_close(&s.gz);
    return rc;
}
