/*
 * profile/regress.c — did the target get slower than the base, run for
 * run? See regress.h.
 */
#include "regress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/json_writer.h"
#include "../common/vec.h"
#include "flatcum.h"

void rp_regress_init(rp_regress *r, double pct)
{
    *r = (rp_regress){.pct = pct};
    rp_strtab_init(&r->names);
}

static void free_side(rp_regress_side *s)
{
    for (size_t i = 0; i < s->runs; i++)
        free(s->self[i]);
    free(s->self);
    free(s->lens);
    free(s->totals);
    free(s->ticks);
}

void rp_regress_free(rp_regress *r)
{
    free_side(&r->base);
    free_side(&r->target);
    rp_strtab_free(&r->names);
    free(r->found);
    *r = (rp_regress){0};
}

static int64_t self_of(const rp_regress_side *s, size_t run, uint32_t name)
{
    return name < s->lens[run] ? s->self[run][name] : 0;
}

/* Room for one more run on side `s`. */
static int reserve_run(rp_regress_side *s)
{
    if (s->runs < s->cap)
        return 0;
    size_t cap = s->cap ? s->cap * 2 : 8;
    int64_t **self = realloc(s->self, cap * sizeof(*self));
    if (self)
        s->self = self;
    size_t *lens = self ? realloc(s->lens, cap * sizeof(*lens)) : NULL;
    if (lens)
        s->lens = lens;
    int64_t *totals = lens ? realloc(s->totals, cap * sizeof(*totals)) : NULL;
    if (totals)
        s->totals = totals;
    int64_t *ticks = totals ? realloc(s->ticks, cap * sizeof(*ticks)) : NULL;
    if (!ticks)
        return -1;
    s->ticks = ticks;
    s->cap = cap;
    return 0;
}

int rp_regress_add_run(rp_regress *r, bool target, const rp_profile *p)
{
    rp_regress_side *s = target ? &r->target : &r->base;
    if (reserve_run(s) != 0)
        return -1;
    rp_flatcum fc;
    if (rp_flatcum_compute(p, &fc) != 0)
        return -1;
    size_t run = s->runs++;
    s->self[run] = NULL;
    s->lens[run] = 0;
    s->totals[run] = fc.total;
    /* what one sample weighs: its interval (1 ms at 1000 Hz) */
    s->ticks[run] = p->meta.frequency > 0 ? 1000000000 / p->meta.frequency : 1000000;
    char name[RP_FRAME_NAME_MAX];
    int rc = 0;
    for (size_t i = 0; i < fc.flat_count && rc == 0; i++) {
        rp_frame_name(p, &p->frames[fc.flat[i].frame], name, sizeof(name));
        uint32_t id = rp_strtab_intern(&r->names, name, strlen(name));
        size_t len = s->lens[run];
        if (id == RP_IDX_NONE || (id >= len && RP_VEC_RESERVE(s->self[run], s->lens[run], (size_t)id + 1) != 0)) {
            rc = -1;
            break;
        }
        if (s->lens[run] > len)
            memset(s->self[run] + len, 0, (s->lens[run] - len) * sizeof(int64_t));
        rp_add_saturating(&s->self[run][id], fc.flat[i].weight);
    }
    rp_flatcum_free(&fc);
    return rc;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), compare_doubles);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The number of arrangements of n and m items with each U from 0 to n*m:
 * the Gaussian binomial [n+m choose n] in x, built as the product of
 * (1 - x^(m+k)) / (1 - x^k) for k = 1..n. */
static double *u_counts(size_t n, size_t m)
{
    size_t top = n * m;
    double *c = calloc(top + 1, sizeof(*c));
    if (!c)
        return NULL;
    c[0] = 1;
    for (size_t k = 1; k <= n; k++) {
        size_t up = m + k;
        for (size_t u = top; u >= up && u <= top; u--) /* times (1 - x^(m+k)) */
            c[u] -= c[u - up];
        for (size_t u = k; u <= top; u++) /* divided by (1 - x^k) */
            c[u] += c[u - k];
    }
    return c;
}

double rp_mann_whitney_p(double u, size_t n, size_t m)
{
    if (n == 0 || m == 0)
        return 1.0;
    size_t top = n * m;
    if (top > 2500) { /* normal, with the continuity correction */
        double mean = (double)top / 2, sd = sqrt((double)n * (double)m * (double)(n + m + 1) / 12.0);
        return 0.5 * erfc((u - 0.5 - mean) / (sd * sqrt(2.0)));
    }
    double *c = u_counts(n, m);
    if (!c)
        return 1.0;
    double at_least = 0, all = 0;
    size_t from = (size_t)ceil(u);
    for (size_t k = 0; k <= top; k++) {
        all += c[k];
        if (k >= from)
            at_least += c[k];
    }
    free(c);
    return all > 0 ? at_least / all : 1.0;
}

/* The one-sided p of target's median above base's × factor, against the
 * sampling noise of the two medians: each run's time of the method is k
 * samples of `tick_ms`, k Poisson, and a median of n runs varies about
 * 1.25 / √n as much as one run. */
static double noise_p(double base_ms, size_t n, double target_ms, size_t m, double factor, double tick_ms)
{
    double base_k = base_ms / tick_ms, target_k = target_ms / tick_ms;
    double var = 1.5625 * (factor * factor * base_k / (double)n + target_k / (double)m);
    if (var <= 0)
        return target_k > factor * base_k ? 0.0 : 1.0;
    double z = (target_k - factor * base_k) / sqrt(var);
    return 0.5 * erfc(z / sqrt(2.0));
}

/* The largest time a sample stands for among a side's runs, in ms. */
static double tick_ms(const rp_regress_side *s)
{
    int64_t most = 0;
    for (size_t i = 0; i < s->runs; i++)
        if (s->ticks[i] > most)
            most = s->ticks[i];
    return most > 0 ? (double)most / 1e6 : 1.0;
}

/* U of target > base × factor: pairs where it holds, ties as halves. */
static double u_grown(const double *base, size_t n, const double *target, size_t m, double factor)
{
    double u = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++)
            u += target[j] > base[i] * factor ? 1.0 : target[j] == base[i] * factor ? 0.5 : 0.0;
    return u;
}

static int most_regressed(const void *a, const void *b)
{
    const rp_regression *x = a, *y = b;
    if (x->growth_pct != y->growth_pct)
        return x->growth_pct > y->growth_pct ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

/* Each run's self time of `name`, into v[] (ms), and the median share
 * of its run's time. */
static double side_values(const rp_regress_side *s, uint32_t name, double *v, double *share)
{
    double shares[s->runs ? s->runs : 1];
    for (size_t i = 0; i < s->runs; i++) {
        int64_t self = self_of(s, i, name);
        v[i] = (double)self / 1e6;
        shares[i] = s->totals[i] > 0 ? (double)self / (double)s->totals[i] : 0;
    }
    *share = s->runs ? median(shares, s->runs) : 0;
    double sorted[s->runs ? s->runs : 1];
    memcpy(sorted, v, s->runs * sizeof(*v));
    return s->runs ? median(sorted, s->runs) : 0;
}

int rp_regress_compute(rp_regress *r)
{
    size_t n = r->base.runs, m = r->target.runs, cap = 0;
    double tick = fmax(tick_ms(&r->base), tick_ms(&r->target)), factor = 1.0 + r->pct / 100.0;
    double *b = calloc(n ? n : 1, sizeof(*b)), *t = calloc(m ? m : 1, sizeof(*t));
    int rc = b && t ? 0 : -1;
    for (uint32_t name = 0; rc == 0 && name < r->names.count; name++) {
        double base_share, target_share;
        double base_ms = side_values(&r->base, name, b, &base_share);
        double target_ms = side_values(&r->target, name, t, &target_share);
        bool heavy = (base_share >= RP_REGRESS_MIN_SHARE && base_ms >= RP_REGRESS_MIN_SAMPLES * tick) ||
                     (target_share >= RP_REGRESS_MIN_SHARE && target_ms >= RP_REGRESS_MIN_SAMPLES * tick);
        if (!heavy)
            continue;
        r->compared++;
        double p = fmax(rp_mann_whitney_p(u_grown(b, n, t, m, factor), n, m),
                        noise_p(base_ms, n, target_ms, m, factor, tick));
        double growth = base_ms > 0 ? (target_ms / base_ms - 1.0) * 100.0 : INFINITY;
        if (p >= RP_REGRESS_ALPHA || growth <= r->pct)
            continue;
        if (RP_VEC_RESERVE(r->found, cap, r->found_count + 1) != 0) {
            rc = -1;
            break;
        }
        r->found[r->found_count++] = (rp_regression){name, base_ms, target_ms, growth, p};
    }
    free(b);
    free(t);
    if (rc == 0 && r->found_count)
        qsort(r->found, r->found_count, sizeof(*r->found), most_regressed);
    return rc;
}

/* The least one-sided p a side of n and another of m runs can give. */
static double least_p(size_t n, size_t m)
{
    return rp_mann_whitney_p((double)(n * m), n, m);
}

static void write_json(rp_out *out, const rp_regress *r)
{
    rp_json j;
    rp_json_init(&j, out);
    rp_json_begin_object(&j);
    rp_json_key(&j, "threshold_pct");
    rp_json_double(&j, r->pct);
    rp_json_member_int(&j, "base_runs", (int64_t)r->base.runs);
    rp_json_member_int(&j, "target_runs", (int64_t)r->target.runs);
    rp_json_member_int(&j, "methods_compared", (int64_t)r->compared);
    rp_json_key(&j, "can_be_significant");
    rp_json_bool(&j, least_p(r->base.runs, r->target.runs) < RP_REGRESS_ALPHA);
    rp_json_key(&j, "regressed");
    rp_json_begin_array(&j);
    for (size_t i = 0; i < r->found_count; i++) {
        const rp_regression *g = &r->found[i];
        rp_json_begin_object(&j);
        rp_json_member_cstring(&j, "method", rp_strtab_get(&r->names, g->name, NULL));
        const struct { const char *key; double v; } values[] = {
            {"base_ms", g->base_ms}, {"target_ms", g->target_ms}, {"growth_pct", isinf(g->growth_pct) ? -1 : g->growth_pct}, {"p", g->p}};
        for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
            rp_json_key(&j, values[k].key);
            rp_json_double(&j, values[k].v);
        }
        rp_json_end_object(&j);
    }
    rp_json_end_array(&j);
    rp_json_end_object(&j);
    rp_out_puts(out, "\n");
}

static void write_text(rp_out *out, const rp_regress *r)
{
    rp_out_printf(out, "Regression check: self time per run of each method, base %zu run%s, target %zu run%s; "
                       "a method regressed when it grew by more than %g%% (one-sided rank test, p < %g)\n",
                  r->base.runs, r->base.runs == 1 ? "" : "s", r->target.runs, r->target.runs == 1 ? "" : "s",
                  r->pct, RP_REGRESS_ALPHA);
    if (least_p(r->base.runs, r->target.runs) >= RP_REGRESS_ALPHA)
        rp_out_printf(out, "With %zu and %zu run%s no method can be called significant (the least p is %.2f): "
                           "give each side several runs, a directory with one run per entry.\n",
                      r->base.runs, r->target.runs, r->target.runs == 1 ? "" : "s",
                      least_p(r->base.runs, r->target.runs));
    if (r->found_count == 0) {
        rp_out_printf(out, "No method regressed (%zu methods compared, each at least %g%% of a run and %d samples).\n",
                      r->compared, RP_REGRESS_MIN_SHARE * 100, RP_REGRESS_MIN_SAMPLES);
        return;
    }
    rp_out_printf(out, "%zu method%s regressed (of %zu compared), most first:\n\n", r->found_count,
                  r->found_count == 1 ? "" : "s", r->compared);
    rp_out_printf(out, "  %12s %12s %9s %8s  %s\n", "base ms/run", "target ms/run", "growth", "p", "method");
    for (size_t i = 0; i < r->found_count; i++) {
        const rp_regression *g = &r->found[i];
        char growth[16];
        if (isinf(g->growth_pct))
            snprintf(growth, sizeof(growth), "new");
        else
            snprintf(growth, sizeof(growth), "%+.1f%%", g->growth_pct);
        rp_out_printf(out, "  %12.1f %12.1f %9s %8.4f  %s\n", g->base_ms, g->target_ms, growth, g->p,
                      rp_strtab_get(&r->names, g->name, NULL));
    }
}

int rp_regress_write(rp_out *out, const rp_regress *r, bool json)
{
    if (json)
        write_json(out, r);
    else
        write_text(out, r);
    return out->error ? -1 : 0;
}
