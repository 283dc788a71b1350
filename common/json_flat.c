/*
 * common/json_flat.c — small JSON objects of scalars. See json_flat.h.
 */
#include "json_flat.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_writer.h"

/* A member read: its key and value's token, their text copied (the
 * reader's buffers are reused at the next token). */
typedef struct member {
    char *key, *value; /* value: the string, or a number's text */
    rp_jtok kind;
} member;

typedef struct members {
    member *list;
    size_t count, cap;
} members;

static void members_free(members *m)
{
    for (size_t i = 0; i < m->count; i++) {
        free(m->list[i].key);
        free(m->list[i].value);
    }
    free(m->list);
}

/* A key given again replaces the earlier member's value, in its place. */
static member *slot_for(members *m, const char *key, size_t len)
{
    for (size_t i = 0; i < m->count; i++)
        if (strlen(m->list[i].key) == len && memcmp(m->list[i].key, key, len) == 0) {
            free(m->list[i].value);
            m->list[i].value = NULL;
            return &m->list[i];
        }
    if (m->count == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 8;
        member *grown = realloc(m->list, cap * sizeof(*grown));
        if (!grown)
            return NULL;
        m->list = grown;
        m->cap = cap;
    }
    member *slot = &m->list[m->count];
    *slot = (member){strndup(key, len), NULL, RP_JT_NULL};
    if (!slot->key)
        return NULL;
    m->count++;
    return slot;
}

static int fail(char err[RP_JSON_FLAT_ERROR_MAX], const char *what)
{
    snprintf(err, RP_JSON_FLAT_ERROR_MAX, "%s", what);
    return -1;
}

/* The members up to the object's end, into m. */
static int read_members(rp_json_reader *r, members *m, char err[RP_JSON_FLAT_ERROR_MAX])
{
    for (;;) {
        rp_jtok t = rp_jr_next(r);
        if (t == RP_JT_END_OBJECT)
            return 0;
        if (t == RP_JT_ERROR) {
            rp_jr_error(r, err, RP_JSON_FLAT_ERROR_MAX);
            return -1;
        }
        member *slot = slot_for(m, r->str, r->str_len);
        if (!slot)
            return fail(err, "out of memory");
        t = rp_jr_next(r);
        if (t == RP_JT_ERROR) {
            rp_jr_error(r, err, RP_JSON_FLAT_ERROR_MAX);
            return -1;
        }
        if (t == RP_JT_BEGIN_OBJECT || t == RP_JT_BEGIN_ARRAY)
            return fail(err, "a member's value is an object or array (only strings, numbers, true, false, null)");
        slot->kind = t;
        if (t == RP_JT_STRING || t == RP_JT_NUMBER) {
            const char *text = t == RP_JT_STRING ? r->str : r->num;
            size_t len = t == RP_JT_STRING ? r->str_len : r->num_len;
            if (!(slot->value = strndup(text, len)))
                return fail(err, "out of memory");
        }
    }
}

static void write_member(rp_json *j, const member *x)
{
    rp_json_key(j, x->key);
    switch (x->kind) {
    case RP_JT_STRING:
        rp_json_cstring(j, x->value);
        break;
    case RP_JT_NUMBER:
        rp_json_raw(j, x->value);
        break;
    case RP_JT_TRUE:
    case RP_JT_FALSE:
        rp_json_bool(j, x->kind == RP_JT_TRUE);
        break;
    default:
        rp_json_null(j);
    }
}

static bool write_object(rp_json *j, const void *ctx)
{
    const members *m = ctx;
    rp_json_begin_object(j);
    for (size_t i = 0; i < m->count; i++)
        write_member(j, &m->list[i]);
    rp_json_end_object(j);
    return true;
}

/* The members as one object's text, malloc'd. */
static int write_members(const members *m, char **out, char err[RP_JSON_FLAT_ERROR_MAX])
{
    *out = rp_json_to_text(write_object, m);
    return *out ? 0 : fail(err, "out of memory");
}

int rp_json_flat_read(rp_json_reader *r, char **out, char err[RP_JSON_FLAT_ERROR_MAX])
{
    members m = {0};
    *out = NULL;
    int rc = read_members(r, &m, err) == 0 ? write_members(&m, out, err) : -1;
    members_free(&m);
    return rc;
}

int rp_json_flat_canonical(const char *text, size_t len, char **out, char err[RP_JSON_FLAT_ERROR_MAX])
{
    rp_json_reader r = {0};
    rp_jr_init(&r, text, len);
    *out = NULL;
    rp_jtok t = rp_jr_next(&r);
    int rc;
    if (t == RP_JT_ERROR) {
        rp_jr_error(&r, err, RP_JSON_FLAT_ERROR_MAX);
        rc = -1;
    } else if (t != RP_JT_BEGIN_OBJECT) {
        rc = fail(err, "not a JSON object");
    } else {
        rc = rp_json_flat_read(&r, out, err);
        if (rc == 0 && rp_jr_next(&r) != RP_JT_END) {
            free(*out);
            *out = NULL;
            rc = fail(err, "text after the object");
        }
    }
    rp_jr_free(&r);
    return rc;
}
