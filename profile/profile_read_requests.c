/*
 * profile/profile_read_requests.c — the "requests" member of a profile.
 *
 * Owns: reading the endpoints (their counters, status classes and
 * histogram) and the slow spans of the document into the profile's
 * requests (profile/requests.h); unknown keys are skipped, as everywhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_read_doc.h"
#include "schema.h"

static bool key_is(const struct doc *d, const char *key)
{
    size_t n = strlen(key);
    return d->jr.str_len == n && memcmp(d->jr.str, key, n) == 0;
}

/* [c1xx, c2xx, c3xx, c4xx, c5xx, cother] */
static int read_status(struct doc *d, rp_jtok tok, rp_endpoint *e)
{
    if (tok != RP_JT_BEGIN_ARRAY)
        return rp_doc_shape_error(d, tok, "\"requests\": an endpoint's \"status\" must be an array of counts");
    int c = 0;
    while ((tok = rp_jr_next(&d->jr)) != RP_JT_END_ARRAY) {
        int64_t v;
        if (rp_doc_read_count(d, tok, "status", &v) != 0)
            return -1;
        if (c < RP_STATUS_CLASSES)
            e->status[c++] = v;
    }
    return 0;
}

/* [[bucket, count], ...] */
static int read_histogram(struct doc *d, rp_jtok tok, rp_endpoint *e)
{
    static const char bad[] = "\"requests\": an endpoint's \"histogram\" must be [[bucket, count], ...] "
                              "with buckets from 0 to 1099";
    if (tok != RP_JT_BEGIN_ARRAY)
        return rp_doc_shape_error(d, tok, bad);
    while ((tok = rp_jr_next(&d->jr)) != RP_JT_END_ARRAY) {
        int64_t b, n;
        if (tok != RP_JT_BEGIN_ARRAY || rp_doc_read_count(d, rp_jr_next(&d->jr), "bucket", &b) != 0 ||
            rp_doc_read_count(d, rp_jr_next(&d->jr), "count", &n) != 0 || b >= RP_HIST_BUCKETS ||
            (tok = rp_jr_next(&d->jr)) != RP_JT_END_ARRAY)
            return rp_doc_shape_error(d, tok == RP_JT_ERROR ? tok : RP_JT_NULL, bad);
        if (rp_hist_add(e, (int)b, n) != 0)
            return rp_doc_out_of_memory(d);
    }
    return 0;
}

/* One object of the "endpoints" or "slow" array: its string member
 * `name_key` into *name, its integers into `base` by `table`, for an
 * endpoint (`e`) its status and histogram, for a slow span its optional
 * "blocked_at" string into *blocked_at (RP_IDX_NONE when absent). */
static int read_object(struct doc *d, rp_jtok tok, const char *name_key, uint32_t *name, void *base,
                       rp_int_fields table, rp_endpoint *e, uint32_t *blocked_at)
{
    if (tok != RP_JT_BEGIN_OBJECT)
        return rp_doc_shape_error(d, tok, "\"requests\": endpoints and slow spans must be objects");
    *name = RP_IDX_NONE;
    if (blocked_at)
        *blocked_at = RP_IDX_NONE;
    while ((tok = rp_jr_next(&d->jr)) == RP_JT_KEY) {
        const rp_int_field *f = rp_doc_field_named(d, table);
        bool is_name = key_is(d, name_key), is_status = e && key_is(d, RP_KEY_REQ_STATUS);
        bool is_hist = e && key_is(d, RP_KEY_REQ_HISTOGRAM);
        bool is_blocked_at = blocked_at && key_is(d, RP_KEY_REQ_BLOCKED_AT);
        tok = rp_jr_next(&d->jr);
        int rc = is_name     ? rp_doc_read_string(d, tok, name_key, name)
                 : is_blocked_at ? rp_doc_read_string(d, tok, RP_KEY_REQ_BLOCKED_AT, blocked_at)
                 : is_status ? read_status(d, tok, e)
                 : is_hist   ? read_histogram(d, tok, e)
                 : f         ? rp_doc_read_count(d, tok, f->key, rp_int_field_at(base, f))
                 : rp_jr_skip(&d->jr, tok) ? 0
                             : rp_doc_shape_error(d, RP_JT_ERROR, "");
        if (rc != 0)
            return -1;
    }
    if (tok != RP_JT_END_OBJECT)
        return rp_doc_shape_error(d, tok, "");
    if (*name == RP_IDX_NONE) {
        char message[96];
        snprintf(message, sizeof(message), "\"requests\": an entry has no \"%s\" string", name_key);
        return rp_doc_shape_error(d, RP_JT_NULL, message);
    }
    return 0;
}

static int read_endpoints(struct doc *d, rp_jtok tok)
{
    if (tok != RP_JT_BEGIN_ARRAY)
        return rp_doc_shape_error(d, tok, "\"requests\".\"endpoints\" must be an array");
    while ((tok = rp_jr_next(&d->jr)) != RP_JT_END_ARRAY) {
        rp_endpoint read = {0};
        uint32_t name;
        int rc = read_object(d, tok, RP_KEY_REQ_NAME, &name, &read, rp_endpoint_fields, &read, NULL);
        rp_endpoint *e = rc == 0 ? rp_requests_endpoint(&d->p->requests, name) : NULL;
        if (rc == 0 && (!e || rp_endpoint_merge(e, &read) != 0))
            rc = rp_doc_out_of_memory(d);
        rp_endpoint_free(&read);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int read_slow(struct doc *d, rp_jtok tok)
{
    if (tok != RP_JT_BEGIN_ARRAY)
        return rp_doc_shape_error(d, tok, "\"requests\".\"slow\" must be an array");
    while ((tok = rp_jr_next(&d->jr)) != RP_JT_END_ARRAY) {
        rp_slow_span s = {0};
        if (read_object(d, tok, RP_KEY_REQ_ENDPOINT, &s.endpoint, &s, rp_slow_span_fields, NULL, &s.blocked_at) != 0)
            return -1;
        if (rp_requests_add_slow(&d->p->requests, &s) != 0)
            return rp_doc_out_of_memory(d);
    }
    return 0;
}

int rp_doc_read_requests(struct doc *d, rp_jtok tok)
{
    if (tok == RP_JT_NULL)
        return 0;
    if (tok != RP_JT_BEGIN_OBJECT)
        return rp_doc_shape_error(d, tok, "\"requests\" must be an object");
    while ((tok = rp_jr_next(&d->jr)) == RP_JT_KEY) {
        bool endpoints = key_is(d, RP_KEY_REQ_ENDPOINTS), slow = key_is(d, RP_KEY_REQ_SLOW);
        bool folded = key_is(d, RP_KEY_REQ_FOLDED_NAMES);
        int64_t n = 0;
        tok = rp_jr_next(&d->jr);
        int rc = endpoints ? read_endpoints(d, tok)
                 : slow    ? read_slow(d, tok)
                 : folded  ? rp_doc_read_count(d, tok, RP_KEY_REQ_FOLDED_NAMES, &n)
                 : rp_jr_skip(&d->jr, tok) ? 0
                           : rp_doc_shape_error(d, RP_JT_ERROR, "");
        if (rc != 0)
            return -1;
        rp_add_saturating(&d->p->requests.folded_names, n);
    }
    return tok == RP_JT_END_OBJECT ? 0 : rp_doc_shape_error(d, tok, "");
}
