/*
 * profile/requests.c — endpoints, histograms and slow spans. See
 * requests.h.
 */
#include "requests.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/hash.h"
#include "../common/sample_table.h"
#include "../common/vec.h"

const char *const rp_status_class_names[RP_STATUS_CLASSES] = {"1xx", "2xx", "3xx", "4xx", "5xx", "other"};

void rp_requests_init(rp_requests *r)
{
    memset(r, 0, sizeof(*r));
    rp_idxset_init(&r->index);
}

void rp_requests_free(rp_requests *r)
{
    for (size_t i = 0; i < r->count; i++)
        rp_endpoint_free(&r->endpoints[i]);
    free(r->endpoints);
    free(r->slow);
    rp_idxset_free(&r->index);
    memset(r, 0, sizeof(*r));
}

int64_t rp_split_other_ns(const rp_span_split *s)
{
    int64_t rest = s->wall_ns - s->queue_ns - s->cpu_ns - s->gvl_wait_ns - s->blocked_ns - s->gc_ns;
    return rest > 0 ? rest : 0;
}

int rp_span_label(int64_t id, char buf[RP_SPAN_LABEL_MAX])
{
    uint64_t pid = (uint64_t)id >> 32, n = (uint64_t)id & 0xffffffffu;
    return pid ? snprintf(buf, RP_SPAN_LABEL_MAX, "%" PRIu64 ".%" PRIu64, pid, n)
               : snprintf(buf, RP_SPAN_LABEL_MAX, "%" PRIu64, n);
}

struct name_key {
    const rp_requests *r;
    uint32_t name;
};

static bool same_name(const void *ctx, uint32_t i)
{
    const struct name_key *k = ctx;
    return k->r->endpoints[i].name == k->name;
}

rp_endpoint *rp_requests_find(const rp_requests *r, uint32_t name)
{
    struct name_key key = {r, name};
    uint32_t found = rp_idxset_find(&r->index, rp_hash_mix64(name), same_name, &key);
    return found == RP_IDX_NONE ? NULL : &r->endpoints[found];
}

rp_endpoint *rp_requests_endpoint(rp_requests *r, uint32_t name)
{
    struct name_key key = {r, name};
    uint64_t hash = rp_hash_mix64(name);
    uint32_t found = rp_idxset_find(&r->index, hash, same_name, &key);
    if (found != RP_IDX_NONE)
        return &r->endpoints[found];
    if (r->count >= RP_IDX_NONE - 1 || RP_VEC_RESERVE(r->endpoints, r->cap, r->count + 1) != 0 ||
        rp_idxset_insert(&r->index, hash, (uint32_t)r->count) != 0)
        return NULL;
    rp_endpoint *e = &r->endpoints[r->count++];
    *e = (rp_endpoint){.name = name};
    return e;
}

int rp_hist_bucket(int64_t ns)
{
    if (ns < 1000)
        return 0;
    int b = (int)floor(log((double)ns / 1000.0) / log(RP_HIST_BASE)) + 1;
    return b < RP_HIST_BUCKETS ? b : RP_HIST_BUCKETS - 1;
}

double rp_hist_value(int b)
{
    if (b <= 0)
        return 500.0;
    return 1000.0 * pow(RP_HIST_BASE, b - 1) * sqrt(RP_HIST_BASE);
}

int rp_status_class(int status)
{
    return status >= 100 && status <= 599 ? status / 100 - 1 : RP_STATUS_CLASSES - 1;
}

static void add_split(rp_span_split *dst, const rp_span_split *s)
{
    rp_add_saturating(&dst->wall_ns, s->wall_ns);
    rp_add_saturating(&dst->cpu_ns, s->cpu_ns);
    rp_add_saturating(&dst->gvl_wait_ns, s->gvl_wait_ns);
    rp_add_saturating(&dst->blocked_ns, s->blocked_ns);
    rp_add_saturating(&dst->gc_ns, s->gc_ns);
    rp_add_saturating(&dst->queue_ns, s->queue_ns);
}

void rp_endpoint_free(rp_endpoint *e)
{
    free(e->hist);
    e->hist = NULL;
    e->hist_len = e->hist_cap = 0;
}

/* Where bucket `b` is, or would go, in the endpoint's cells. */
static uint32_t cell_at(const rp_endpoint *e, int b)
{
    uint32_t lo = 0, hi = e->hist_len;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (e->hist[mid].bucket < (uint32_t)b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int rp_hist_add(rp_endpoint *e, int b, int64_t n)
{
    uint32_t i = cell_at(e, b);
    if (i < e->hist_len && e->hist[i].bucket == (uint32_t)b) {
        rp_add_saturating(&e->hist[i].count, n);
        return 0;
    }
    size_t cap = e->hist_cap;
    if (RP_VEC_RESERVE(e->hist, cap, (size_t)e->hist_len + 1) != 0)
        return -1;
    e->hist_cap = (uint32_t)cap;
    memmove(&e->hist[i + 1], &e->hist[i], (e->hist_len - i) * sizeof(*e->hist));
    e->hist[i] = (rp_hist_cell){(uint32_t)b, n};
    e->hist_len++;
    return 0;
}

int64_t rp_hist_count(const rp_endpoint *e, int b)
{
    uint32_t i = cell_at(e, b);
    return i < e->hist_len && e->hist[i].bucket == (uint32_t)b ? e->hist[i].count : 0;
}

int rp_endpoint_add(rp_endpoint *e, const rp_span_split *s, int status)
{
    if (rp_hist_add(e, rp_hist_bucket(s->wall_ns), 1) != 0)
        return -1;
    e->count++;
    add_split(&e->sum, s);
    if (s->wall_ns > e->max_ns)
        e->max_ns = s->wall_ns;
    e->status[rp_status_class(status)]++;
    return 0;
}

int rp_endpoint_merge(rp_endpoint *dst, const rp_endpoint *src)
{
    if (src->count == 0)
        return 0;
    for (uint32_t i = 0; i < src->hist_len; i++)
        if (rp_hist_add(dst, (int)src->hist[i].bucket, src->hist[i].count) != 0)
            return -1;
    dst->count += src->count;
    add_split(&dst->sum, &src->sum);
    if (src->max_ns > dst->max_ns)
        dst->max_ns = src->max_ns;
    for (int i = 0; i < RP_STATUS_CLASSES; i++)
        dst->status[i] += src->status[i];
    return 0;
}

int rp_requests_add_slow(rp_requests *r, const rp_slow_span *s)
{
    if (RP_VEC_RESERVE(r->slow, r->slow_cap, r->slow_count + 1) != 0)
        return -1;
    r->slow[r->slow_count++] = *s;
    return 0;
}

double rp_endpoint_quantile(const rp_endpoint *e, double q)
{
    if (e->count == 0 || !e->hist_len)
        return 0;
    /* the smallest value with at least q of the spans at or below it */
    int64_t rank = (int64_t)ceil(q * (double)e->count), seen = 0;
    if (rank < 1)
        rank = 1;
    if (rank >= e->count)
        return (double)e->max_ns; /* the slowest is known exactly */
    for (uint32_t i = 0; i < e->hist_len; i++) {
        seen += e->hist[i].count;
        if (seen >= rank) {
            double v = rp_hist_value((int)e->hist[i].bucket);
            return v > (double)e->max_ns ? (double)e->max_ns : v;
        }
    }
    return (double)e->max_ns;
}
