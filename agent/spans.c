/*
 * agent/spans.c — requests and jobs. See spans.h for what runs where.
 */
#include "spans.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/clock.h"
#include "../common/vec.h"
#include "config.h"
#include "gvl_gc.h"
#include "sampler.h"
#include "thread_cpu.h"

/* The start of a thread's outermost span. */
struct rp_open_span {
    int64_t mono_ns, real_ns, cpu_ns, blocked_ns, wait_ns, gc_ns;
    size_t name_len;
    char name[RP_SPAN_NAME_MAX];
};

/* The K slowest spans of one endpoint (index as in the store's requests). */
typedef struct slow_list {
    rp_slow_span *items;
    size_t count;
} slow_list;

/* One recording's requests since the writer last took them: the store
 * holds their names (strings) and endpoint statistics. */
typedef struct span_set {
    rp_profile store;
    bool ready;
    slow_list *slow;
    size_t slow_cap;
} span_set;

static span_set sets[RP_RECORDINGS];
static size_t keep = RP_SLOW_KEEP_DEFAULT;
static int64_t slow_ns; /* 0: the K slowest */
static bool used;

void rp_spans_init(long k, long ms)
{
    keep = k > 0 ? (size_t)k : RP_SLOW_KEEP_DEFAULT;
    slow_ns = ms > 0 ? (int64_t)ms * 1000000 : 0;
}

bool rp_spans_used(void)
{
    return used;
}

static void reset_set(span_set *s)
{
    if (s->ready) {
        for (size_t i = 0; i < s->store.requests.count; i++)
            free(s->slow[i].items);
        rp_profile_free(&s->store);
    }
    free(s->slow);
    memset(s, 0, sizeof(*s));
    s->ready = rp_profile_init(&s->store, true) == 0;
}

void rp_spans_begin_recording(rp_rec_id id)
{
    reset_set(&sets[id]);
}

int rp_spans_begin(rp_thread *t, const char *name, size_t len)
{
    if (t->span_depth++ > 0)
        return 0;
    if (!t->span && !(t->span = malloc(sizeof(*t->span))))
        return -1;
    if (!used) {
        used = true; /* from now on the GVL hooks count blocked and wait time */
        rp_gvl_gc_update();
    }
    struct rp_open_span *s = t->span;
    s->name_len = len < RP_SPAN_NAME_MAX ? len : RP_SPAN_NAME_MAX;
    memcpy(s->name, name, s->name_len);
    s->blocked_ns = t->acct_blocked_ns;
    s->wait_ns = t->acct_wait_ns;
    s->gc_ns = t->acct_gc_ns;
    s->cpu_ns = rp_thread_cpu_now(&t->cpu);
    s->real_ns = rp_clock_ns(CLOCK_REALTIME);
    s->mono_ns = rp_monotonic_ns();
    return 0;
}

/* Keeps `s` among the K slowest of endpoint `index` of `set`. */
static int keep_slow(span_set *set, size_t index, const rp_slow_span *s)
{
    if (slow_ns && s->split.wall_ns < slow_ns)
        return 0;
    size_t need = set->store.requests.count;
    if (need > set->slow_cap) {
        size_t old = set->slow_cap;
        if (RP_VEC_RESERVE(set->slow, set->slow_cap, need) != 0)
            return -1;
        memset(set->slow + old, 0, (set->slow_cap - old) * sizeof(*set->slow));
    }
    slow_list *l = &set->slow[index];
    if (!l->items && !(l->items = rp_alloc_array(keep, sizeof(*l->items))))
        return -1;
    if (l->count < keep) {
        l->items[l->count++] = *s;
        return 0;
    }
    size_t fastest = 0;
    for (size_t i = 1; i < l->count; i++)
        if (l->items[i].split.wall_ns < l->items[fastest].split.wall_ns)
            fastest = i;
    if (s->split.wall_ns > l->items[fastest].split.wall_ns)
        l->items[fastest] = *s;
    return 0;
}

static void add_span(span_set *set, const struct rp_open_span *o, const rp_slow_span *s)
{
    if (!set->ready)
        return;
    uint32_t name = rp_profile_string(&set->store, o->name, o->name_len);
    rp_endpoint *e = name == RP_IDX_NONE ? NULL : rp_requests_endpoint(&set->store.requests, name);
    if (!e || rp_endpoint_add(e, &s->split, (int)s->status) != 0)
        return;
    keep_slow(set, (size_t)(e - set->store.requests.endpoints), s);
}

void rp_spans_end(rp_thread *t, int status)
{
    if (t->span_depth == 0 || --t->span_depth > 0 || !t->span)
        return;
    const struct rp_open_span *o = t->span;
    int64_t gc = t->acct_gc_ns - o->gc_ns, cpu = rp_thread_cpu_now(&t->cpu) - o->cpu_ns - gc;
    rp_slow_span s = {
        .start_ns = o->real_ns,
        .status = status,
        .thread_seq = t->thread_seq,
        .split = {.wall_ns = rp_monotonic_ns() - o->mono_ns,
                  .cpu_ns = cpu > 0 ? cpu : 0,
                  .gvl_wait_ns = t->acct_wait_ns - o->wait_ns,
                  .blocked_ns = t->acct_blocked_ns - o->blocked_ns,
                  .gc_ns = gc},
    };
    for (int r = 0; r < RP_RECORDINGS; r++)
        if (atomic_load_explicit(&rp_recording_get((rp_rec_id)r)->accepting, memory_order_relaxed))
            add_span(&sets[r], o, &s);
}

int rp_spans_take(rp_rec_id id, rp_profile *p, bool clear)
{
    span_set *set = &sets[id];
    if (!set->ready)
        return 0;
    const rp_requests *src = &set->store.requests;
    int rc = 0;
    for (size_t i = 0; i < src->count && rc == 0; i++) {
        const rp_endpoint *from = &src->endpoints[i];
        uint32_t name = rp_profile_cstring(p, rp_profile_str(&set->store, from->name));
        rp_endpoint *e = name == RP_IDX_NONE ? NULL : rp_requests_endpoint(&p->requests, name);
        rc = e && rp_endpoint_merge(e, from) == 0 ? 0 : -1;
        for (size_t k = 0; rc == 0 && i < set->slow_cap && k < set->slow[i].count; k++) {
            rp_slow_span s = set->slow[i].items[k];
            s.endpoint = name;
            rc = rp_requests_add_slow(&p->requests, &s);
        }
    }
    if (clear)
        reset_set(set);
    return rc;
}

void rp_spans_after_fork(void)
{
    for (int r = 0; r < RP_RECORDINGS; r++)
        reset_set(&sets[r]);
}
