/*
 * profile/encode/requests_table.c — the requests report. See
 * requests_table.h.
 */
#include "requests_table.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../common/json_writer.h"
#include "../../common/numfmt.h"
#include "../../common/vec.h"

static bool wanted(const rp_profile *p, const rp_requests_opts *o, uint32_t name)
{
    return !o->endpoint || regexec(o->endpoint, rp_profile_str(p, name), 0, NULL, 0) == 0;
}

static int heaviest_total(const void *a, const void *b)
{
    const rp_endpoint *x = *(const rp_endpoint *const *)a, *y = *(const rp_endpoint *const *)b;
    if (x->sum.wall_ns != y->sum.wall_ns)
        return x->sum.wall_ns > y->sum.wall_ns ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

static int slowest_first(const void *a, const void *b)
{
    const rp_slow_span *x = a, *y = b;
    if (x->split.wall_ns != y->split.wall_ns)
        return x->split.wall_ns > y->split.wall_ns ? -1 : 1;
    return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

static double ms(double ns)
{
    return ns / 1e6;
}

static double share(int64_t part, int64_t whole)
{
    return whole > 0 ? (double)part * 100.0 / (double)whole : 0.0;
}

/* The endpoints shown, heaviest total first (a malloc'd array). */
static const rp_endpoint **sorted_endpoints(const rp_profile *p, const rp_requests_opts *o, size_t *n)
{
    const rp_requests *r = &p->requests;
    const rp_endpoint **rows = rp_alloc_array(r->count ? r->count : 1, sizeof(*rows));
    *n = 0;
    for (size_t i = 0; rows && i < r->count; i++)
        if (r->endpoints[i].count > 0 && wanted(p, o, r->endpoints[i].name))
            rows[(*n)++] = &r->endpoints[i];
    if (rows)
        qsort(rows, *n, sizeof(*rows), heaviest_total);
    return rows;
}

static void write_json(rp_out *out, const rp_profile *p, const rp_endpoint **rows, size_t n)
{
    rp_json j;
    rp_json_init(&j, out);
    rp_json_begin_array(&j);
    for (size_t i = 0; i < n; i++) {
        const rp_endpoint *e = rows[i];
        rp_json_begin_object(&j);
        rp_json_member_cstring(&j, "name", rp_profile_str(p, e->name));
        rp_json_member_int(&j, "count", e->count);
        const struct { const char *key; double v; } values[] = {
            {"p50_ms", ms(rp_endpoint_quantile(e, 0.50))}, {"p90_ms", ms(rp_endpoint_quantile(e, 0.90))},
            {"p99_ms", ms(rp_endpoint_quantile(e, 0.99))}, {"max_ms", ms((double)e->max_ns)},
            {"total_ms", ms((double)e->sum.wall_ns)},      {"cpu_ms", ms((double)e->sum.cpu_ns)},
            {"gvl_wait_ms", ms((double)e->sum.gvl_wait_ns)}, {"blocked_ms", ms((double)e->sum.blocked_ns)},
            {"gc_ms", ms((double)e->sum.gc_ns)},           {"queue_ms", ms((double)e->sum.queue_ns)},
            {"other_ms", ms((double)rp_split_other_ns(&e->sum))},
        };
        for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
            rp_json_key(&j, values[k].key);
            rp_json_double(&j, values[k].v);
        }
        rp_json_key(&j, "status");
        rp_json_begin_object(&j);
        for (int c = 0; c < RP_STATUS_CLASSES; c++)
            if (e->status[c])
                rp_json_member_int(&j, rp_status_class_names[c], e->status[c]);
        rp_json_end_object(&j);
        rp_json_end_object(&j);
    }
    rp_json_end_array(&j);
    rp_out_write(out, "\n", 1);
}

/* A split's states as shares of its wall time: %queue %cpu %wait %block
 * %gc %other, each " %6.1f". */
static void write_shares(rp_out *out, const rp_span_split *s)
{
    const int64_t parts[] = {s->queue_ns, s->cpu_ns, s->gvl_wait_ns, s->blocked_ns, s->gc_ns, rp_split_other_ns(s)};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        rp_out_printf(out, " %6.1f", share(parts[i], s->wall_ns));
}

static void write_table(rp_out *out, const rp_profile *p, const rp_endpoint **rows, size_t n)
{
    char count[RP_NUMFMT_MAX], kept[RP_NUMFMT_MAX];
    rp_out_printf(out, "Requests and jobs: %zu endpoints\n\n", n);
    rp_out_printf(out, "  %8s %9s %9s %9s %9s %11s %6s %6s %6s %6s %6s %6s  %s\n", "count", "p50 ms", "p90 ms",
                  "p99 ms", "max ms", "total ms", "%queue", "%cpu", "%wait", "%block", "%gc", "%other", "endpoint");
    for (size_t i = 0; i < n; i++) {
        const rp_endpoint *e = rows[i];
        rp_out_printf(out, "  %8s %9.2f %9.2f %9.2f %9.2f %11.1f", rp_fmt_int(e->count, count),
                      ms(rp_endpoint_quantile(e, 0.50)), ms(rp_endpoint_quantile(e, 0.90)),
                      ms(rp_endpoint_quantile(e, 0.99)), ms((double)e->max_ns), ms((double)e->sum.wall_ns));
        write_shares(out, &e->sum);
        rp_out_printf(out, "  %s\n", rp_profile_str(p, e->name));
    }
    if (p->requests.folded_names > 0)
        rp_out_printf(out,
                      "\n  %s holds the requests of about %s more endpoint names: the agent keeps %s "
                      "per part (give routes, not raw paths, as names)\n",
                      RP_ENDPOINT_OTHER, rp_fmt_int(p->requests.folded_names, count),
                      rp_fmt_int(RP_ENDPOINTS_MAX, kept));
}

static int write_slowest(rp_out *out, const rp_profile *p, const rp_requests_opts *o)
{
    const rp_requests *r = &p->requests;
    rp_slow_span *spans = rp_alloc_array(r->slow_count ? r->slow_count : 1, sizeof(*spans));
    if (!spans)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < r->slow_count; i++)
        if (wanted(p, o, r->slow[i].endpoint))
            spans[n++] = r->slow[i];
    qsort(spans, n, sizeof(*spans), slowest_first);
    if ((size_t)o->slowest < n)
        n = (size_t)o->slowest;
    rp_out_printf(out, "The %zu slowest requests and jobs kept (the samples of each carry its %%span: "
                       "rperf-analyze report --tagfocus %%span=^ID$), with their longest block off the GVL\n\n", n);
    rp_out_printf(out, "  %10s %6s %6s %6s %6s %6s %6s %6s %7s %13s  %s\n", "ms", "%queue", "%cpu", "%wait",
                  "%block", "%gc", "%other", "status", "thread", "%span", "endpoint");
    for (size_t i = 0; i < n; i++) {
        const rp_slow_span *s = &spans[i];
        char span[RP_SPAN_LABEL_MAX] = "-";
        if (s->span_id)
            rp_span_label(s->span_id, span);
        rp_out_printf(out, "  %10.2f", ms((double)s->split.wall_ns));
        write_shares(out, &s->split);
        rp_out_printf(out, " %6" PRId64 " %7" PRId64 " %13s  %s", s->status, s->thread_seq, span,
                      rp_profile_str(p, s->endpoint));
        if (s->blocked_at != RP_IDX_NONE)
            rp_out_printf(out, "  (blocked %.1f ms in %s)", ms((double)s->longest_block_ns),
                          rp_profile_str(p, s->blocked_at));
        rp_out_write(out, "\n", 1);
    }
    free(spans);
    return 0;
}

int rp_requests_write(const rp_profile *p, rp_out *out, const rp_requests_opts *o)
{
    if (o->slowest > 0)
        return write_slowest(out, p, o);
    size_t n;
    const rp_endpoint **rows = sorted_endpoints(p, o, &n);
    if (!rows)
        return -1;
    if (o->json)
        write_json(out, p, rows, n);
    else
        write_table(out, p, rows, n);
    free(rows);
    return 0;
}
