/*
 * agent/requests/endpoints.c — each recording's table of endpoints. See
 * endpoints.h.
 */
#include "endpoints.h"

#include <stdlib.h>
#include <string.h>

#include "../../common/distinct.h"
#include "../../common/strtab.h"
#include "../../common/vec.h"
#include "../base/config.h"

typedef struct slow_list {
    rp_slow_span *items;
    size_t count;
} slow_list;

/* One recording's requests since the writer last took them: the store
 * holds their names (strings) and endpoint statistics. */
typedef struct span_set {
    rp_profile store;
    rp_distinct folded; /* names past RP_ENDPOINTS_MAX, counted not kept */
    bool ready;
    slow_list *slow;
    size_t slow_cap;
} span_set;

static span_set sets[RP_RECORDINGS];

/* Each recording's endpoints since it began (never cleared at a part):
 * without RPERF_SLOW_MS a request is kept as slow only when it is among
 * the slowest 1% of its endpoint so far (once it has had SLOW_WARMUP), its
 * p99 recomputed every SLOW_REFRESH requests. */
#define SLOW_WARMUP 100
#define SLOW_REFRESH 64
typedef struct lifetime {
    rp_profile store;
    bool ready;
    double *p99; /* by endpoint index of store.requests */
    size_t p99_cap;
} lifetime;

static lifetime lives[RP_RECORDINGS];

static void reset_lifetime(lifetime *l)
{
    if (l->ready)
        rp_profile_free(&l->store);
    free(l->p99);
    memset(l, 0, sizeof(*l));
    l->ready = rp_profile_init(&l->store, true) == 0;
}

/* The endpoint named `name` of `store`; past RP_ENDPOINTS_MAX a name not
 * kept yet is counted in `folded` (unless NULL) and its requests under
 * RP_ENDPOINT_OTHER — so a server's every distinct URL (slugs, asset
 * digests, scanners' random paths) costs no memory past the bound, and
 * no request goes uncounted. NULL when out of memory. */
static rp_endpoint *endpoint_of(rp_profile *store, const char *name, size_t len, rp_distinct *folded)
{
    rp_requests *r = &store->requests;
    uint32_t id;
    if (r->count < RP_ENDPOINTS_MAX - 1) {
        id = rp_profile_string(store, name, len);
        return id == RP_IDX_NONE ? NULL : rp_requests_endpoint(r, id);
    }
    id = rp_strtab_find(&store->strings, name, len);
    rp_endpoint *e = id == RP_IDX_NONE ? NULL : rp_requests_find(r, id);
    if (e)
        return e;
    if (folded)
        rp_distinct_add(folded, name, len);
    id = rp_profile_cstring(store, RP_ENDPOINT_OTHER);
    return id == RP_IDX_NONE ? NULL : rp_requests_endpoint(r, id);
}

/* The least a request of `name` must take to be among its endpoint's
 * slowest 1% so far, after counting this one of `wall_ns` (0: any). */
static double slow_threshold(lifetime *l, const char *name, size_t len, const rp_span_split *s)
{
    if (!l->ready)
        return 0;
    rp_endpoint *e = endpoint_of(&l->store, name, len, NULL);
    if (!e || rp_endpoint_add(e, s, 0) != 0)
        return 0;
    size_t i = (size_t)(e - l->store.requests.endpoints);
    if (i >= l->p99_cap) {
        size_t old = l->p99_cap;
        if (RP_VEC_RESERVE(l->p99, l->p99_cap, i + 1) != 0)
            return 0;
        memset(l->p99 + old, 0, (l->p99_cap - old) * sizeof(*l->p99));
    }
    if (e->count < SLOW_WARMUP)
        return 0;
    if (e->count % SLOW_REFRESH == 0 || l->p99[i] == 0)
        l->p99[i] = rp_endpoint_quantile(e, 0.99);
    return l->p99[i];
}
static size_t keep = RP_SLOW_KEEP_DEFAULT;
static int64_t slow_ns; /* 0: the K slowest */

static void reset_set(span_set *s)
{
    /* slow[] grows only when a span is kept as slow: endpoints that came
     * after the last one kept (or a part with none kept) have no entry */
    for (size_t i = 0; i < s->slow_cap; i++)
        free(s->slow[i].items);
    if (s->ready)
        rp_profile_free(&s->store);
    free(s->slow);
    memset(s, 0, sizeof(*s)); /* the folded names' count too */
    s->ready = rp_profile_init(&s->store, true) == 0;
}

void rp_endpoints_begin_recording(rp_rec_id id)
{
    reset_set(&sets[id]);
    reset_lifetime(&lives[id]);
}

/* Keeps `s` among the K slowest of endpoint `index` of `set` when it is
 * slow (RPERF_SLOW_MS, else at least `threshold`); returns where it was
 * kept, or NULL. */
static rp_slow_span *keep_slow(span_set *set, size_t index, const rp_slow_span *s, double threshold)
{
    if (slow_ns ? s->split.wall_ns < slow_ns : (double)s->split.wall_ns < threshold)
        return NULL;
    size_t need = set->store.requests.count;
    if (need > set->slow_cap) {
        size_t old = set->slow_cap;
        if (RP_VEC_RESERVE(set->slow, set->slow_cap, need) != 0)
            return NULL;
        memset(set->slow + old, 0, (set->slow_cap - old) * sizeof(*set->slow));
    }
    slow_list *l = &set->slow[index];
    if (!l->items && !(l->items = rp_alloc_array(keep, sizeof(*l->items))))
        return NULL;
    if (l->count < keep) {
        l->items[l->count] = *s;
        return &l->items[l->count++];
    }
    size_t fastest = 0;
    for (size_t i = 1; i < l->count; i++)
        if (l->items[i].split.wall_ns < l->items[fastest].split.wall_ns)
            fastest = i;
    if (s->split.wall_ns <= l->items[fastest].split.wall_ns)
        return NULL;
    l->items[fastest] = *s;
    return &l->items[fastest];
}

rp_slow_span *rp_endpoints_add(rp_rec_id id, const char *name, size_t len, const rp_slow_span *s)
{
    span_set *set = &sets[id];
    if (!set->ready)
        return NULL;
    double threshold = slow_ns ? 0 : slow_threshold(&lives[id], name, len, &s->split);
    rp_endpoint *e = endpoint_of(&set->store, name, len, &set->folded);
    if (!e || rp_endpoint_add(e, &s->split, (int)s->status) != 0)
        return NULL;
    return keep_slow(set, (size_t)(e - set->store.requests.endpoints), s, threshold);
}

uint32_t rp_endpoints_string(rp_rec_id id, const char *text, size_t len)
{
    return rp_profile_string(&sets[id].store, text, len);
}

int rp_endpoints_take(rp_rec_id id, rp_profile *p, bool clear)
{
    span_set *set = &sets[id];
    if (!set->ready)
        return 0;
    const rp_requests *src = &set->store.requests;
    int rc = 0;
    if (src->count >= RP_ENDPOINTS_MAX - 1)
        rp_add_saturating(&p->requests.folded_names, rp_distinct_count(&set->folded));
    for (size_t i = 0; i < src->count && rc == 0; i++) {
        const rp_endpoint *from = &src->endpoints[i];
        uint32_t name = rp_profile_cstring(p, rp_profile_str(&set->store, from->name));
        rp_endpoint *e = name == RP_IDX_NONE ? NULL : rp_requests_endpoint(&p->requests, name);
        rc = e && rp_endpoint_merge(e, from) == 0 ? 0 : -1;
        for (size_t k = 0; rc == 0 && i < set->slow_cap && k < set->slow[i].count; k++) {
            rp_slow_span s = set->slow[i].items[k];
            s.endpoint = name;
            if (s.blocked_at != RP_IDX_NONE)
                s.blocked_at = rp_profile_cstring(p, rp_profile_str(&set->store, s.blocked_at));
            rc = rp_requests_add_slow(&p->requests, &s);
        }
    }
    if (clear)
        reset_set(set);
    return rc;
}

void rp_endpoints_after_fork(void)
{
    for (int r = 0; r < RP_RECORDINGS; r++)
        rp_endpoints_begin_recording((rp_rec_id)r);
}

void rp_endpoints_init(long k, long ms)
{
    keep = k > 0 ? (size_t)k : RP_SLOW_KEEP_DEFAULT;
    slow_ns = ms > 0 ? (int64_t)ms * 1000000 : 0;
}
