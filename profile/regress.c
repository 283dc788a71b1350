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
#include "schema.h"

void rp_regress_init(rp_regress *r, double pct)
{
    *r = (rp_regress){.pct = pct};
    rp_strtab_init(&r->names);
    rp_stack_table_init(&r->chains);
}

static void free_side(rp_regress_side *s)
{
    for (size_t i = 0; i < s->runs; i++)
        free(s->chain_ns[i]);
    free(s->chain_ns);
    free(s->lens);
    free(s->totals);
    free(s->ticks);
}

void rp_regress_free(rp_regress *r)
{
    free_side(&r->base);
    free_side(&r->target);
    rp_strtab_free(&r->names);
    rp_stack_table_free(&r->chains);
    free(r->chain);
    free(r->found);
    *r = (rp_regress){0};
}

static int64_t chain_ns_of(const rp_regress_side *s, size_t run, uint32_t chain)
{
    return chain < s->lens[run] ? s->chain_ns[run][chain] : 0;
}

/* Room for one more run on side `s`. */
static int reserve_run(rp_regress_side *s)
{
    if (s->runs < s->cap)
        return 0;
    size_t cap = s->cap ? s->cap * 2 : 8;
    int64_t **chain_ns = realloc(s->chain_ns, cap * sizeof(*chain_ns));
    if (chain_ns)
        s->chain_ns = chain_ns;
    size_t *lens = chain_ns ? realloc(s->lens, cap * sizeof(*lens)) : NULL;
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

/* The chain of `parent` (RP_IDX_NONE: none) called from method `name`,
 * added when new; RP_IDX_NONE when out of memory. */
static uint32_t chain_of(rp_regress *r, uint32_t parent, uint32_t name)
{
    uint32_t key[2] = {parent == RP_IDX_NONE ? 0 : parent + 1, name};
    size_t known = r->chains.count;
    uint32_t id = rp_stack_table_intern(&r->chains, key, 2);
    if (id == RP_IDX_NONE || id < known)
        return id;
    if (RP_VEC_RESERVE(r->chain, r->chains_cap, (size_t)id + 1) != 0)
        return RP_IDX_NONE;
    r->chain[id] = (rp_regress_chain){parent, name};
    return id;
}

/* The name id of each frame of `p`, made when first asked for. */
static uint32_t name_of(rp_regress *r, const rp_profile *p, uint32_t frame, uint32_t *cache)
{
    if (cache[frame] != RP_IDX_NONE)
        return cache[frame];
    char name[RP_FRAME_NAME_MAX];
    rp_frame_name(p, &p->frames[frame], name, sizeof(name));
    return cache[frame] = rp_strtab_intern(&r->names, name, strlen(name));
}

/* Adds `weight` to chain `chain` of run `run`. */
static int add_chain_ns(rp_regress_side *s, size_t run, uint32_t chain, int64_t weight)
{
    size_t len = s->lens[run];
    if (chain >= len) {
        if (RP_VEC_RESERVE(s->chain_ns[run], s->lens[run], (size_t)chain + 1) != 0)
            return -1;
        memset(s->chain_ns[run] + len, 0, (s->lens[run] - len) * sizeof(int64_t));
    }
    rp_add_saturating(&s->chain_ns[run][chain], weight);
    return 0;
}

int rp_regress_add_run(rp_regress *r, bool target, const rp_profile *p)
{
    rp_regress_side *s = target ? &r->target : &r->base;
    if (reserve_run(s) != 0)
        return -1;
    size_t run = s->runs++;
    s->chain_ns[run] = NULL;
    s->lens[run] = 0;
    s->totals[run] = rp_sample_table_total(&p->samples);
    /* what one sample weighs: its interval (1 ms at 1000 Hz) */
    s->ticks[run] = p->meta.frequency > 0 ? 1000000000 / p->meta.frequency : 1000000;
    uint32_t *names = malloc((p->frame_count ? p->frame_count : 1) * sizeof(*names));
    int rc = names ? 0 : -1;
    for (size_t f = 0; names && f < p->frame_count; f++)
        names[f] = RP_IDX_NONE;
    /* every sample's time to each chain of its stack, from its innermost
     * Ruby method out: a C method's time is its caller's (the method that
     * called it with more to do is named, and one chain holds what a
     * Ruby method spends in itself and in the C methods it calls) */
    for (size_t i = 0; rc == 0 && i < p->samples.count; i++) {
        const rp_sample *sample = &p->samples.samples[i];
        uint32_t depth, first = 0;
        const uint32_t *frames = rp_stack_table_get(&p->stacks, sample->stack, &depth);
        while (first + 1 < depth && strcmp(rp_profile_str(p, p->frames[frames[first]].path), RP_C_METHOD_PATH) == 0)
            first++;
        uint32_t chain = RP_IDX_NONE;
        for (uint32_t k = first; rc == 0 && k < depth; k++) {
            uint32_t name = name_of(r, p, frames[k], names);
            chain = name == RP_IDX_NONE ? RP_IDX_NONE : chain_of(r, chain, name);
            rc = chain == RP_IDX_NONE ? -1 : add_chain_ns(s, run, chain, sample->weight);
        }
    }
    free(names);
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

/* The one-sided p of the target's median above the base's × factor,
 * against the sampling noise of the two medians. Each run's time of a
 * chain is k samples, k Poisson (relative noise 1/√k), and so is the rest
 * of the run measured against (`rest_ms`; 0: milliseconds are compared,
 * no rest); a median of n runs varies about 1.25 / √n as much as one run.
 * On the logarithms: a ratio's relative noises add. */
typedef struct noise_side {
    double ms, rest_ms; /* medians */
    size_t runs;
} noise_side;

static double relative_var(const noise_side *s, double tick_ms)
{
    double var = s->ms > 0 ? tick_ms / s->ms : INFINITY;
    if (s->rest_ms > 0)
        var += tick_ms / s->rest_ms;
    return 1.5625 * var / (double)s->runs;
}

static double noise_p(const noise_side *base, const noise_side *target, double factor, double tick_ms)
{
    if (!(target->ms > 0))
        return 1.0;
    if (!(base->ms > 0))
        return 0.0;
    double ratio_t = target->rest_ms > 0 ? target->ms / target->rest_ms : target->ms;
    double ratio_b = base->rest_ms > 0 ? base->ms / base->rest_ms : base->ms;
    double z = (log(ratio_t / ratio_b) - log(factor)) / sqrt(relative_var(base, tick_ms) + relative_var(target, tick_ms));
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
    return x->chain < y->chain ? -1 : x->chain > y->chain;
}

/* One side's figures of a chain: per run its time (ms) and the time it
 * is measured against (ms): the rest of its shorter chain's — the time of
 * its siblings, the other callers along the same path — or, for a
 * method's self time as a whole, the rest of the run's; the medians, and
 * the median share of its runs. */
typedef struct side_figures {
    double *ms, *rest;
    double median_ms, median_rest, share;
} side_figures;

static void figures_of(const rp_regress_side *s, uint32_t chain, uint32_t parent, side_figures *f)
{
    size_t n = s->runs;
    double shares[n ? n : 1], sorted[n ? n : 1], rests[n ? n : 1];
    for (size_t i = 0; i < n; i++) {
        int64_t ns = chain_ns_of(s, i, chain);
        int64_t whole = parent == RP_IDX_NONE ? s->totals[i] : chain_ns_of(s, i, parent);
        f->ms[i] = (double)ns / 1e6;
        f->rest[i] = (double)(whole - ns) / 1e6;
        shares[i] = s->totals[i] > 0 ? (double)ns / (double)s->totals[i] : 0;
    }
    memcpy(sorted, f->ms, n * sizeof(*sorted));
    memcpy(rests, f->rest, n * sizeof(*rests));
    f->median_ms = n ? median(sorted, n) : 0;
    f->median_rest = n ? median(rests, n) : 0;
    f->share = n ? median(shares, n) : 0;
}

/* The values tested: the chain's time against the rest of its run, or
 * (in_ms) its milliseconds; into v[]. A run's rest is at least one
 * sample (`tick` ms), so that a ratio stays finite. */
static void measured(const side_figures *f, size_t n, bool in_ms, double tick, double *v)
{
    for (size_t i = 0; i < n; i++)
        v[i] = in_ms ? f->ms[i] : f->ms[i] / fmax(f->rest[i], tick);
}

/* How far a side's values spread from run to run: the median absolute
 * deviation of their logarithms, scaled to a standard deviation's size
 * (1.4826), as a fraction; -1 when a value is 0. */
static double spread_of(const double *v, size_t n)
{
    double logs[n ? n : 1], dev[n ? n : 1];
    for (size_t i = 0; i < n; i++) {
        if (!(v[i] > 0))
            return -1;
        logs[i] = log(v[i]);
    }
    double mid = n ? median(logs, n) : 0;
    for (size_t i = 0; i < n; i++)
        dev[i] = fabs(log(v[i]) - mid);
    return n ? 1.4826 * median(dev, n) : -1;
}

/* What testing a chain leaves for naming. */
typedef struct tested {
    bool regressed;
    rp_regression r;
} tested;

static bool is_c_method(const rp_regress *r, uint32_t name)
{
    const char *text = rp_strtab_get(&r->names, name, NULL);
    size_t len = strlen(text), tail = strlen("(" RP_C_METHOD_PATH ")");
    return len >= tail && strcmp(text + len - tail, "(" RP_C_METHOD_PATH ")") == 0;
}

/* The chain named for a regressed one: out through the callers of C
 * methods (the heaviest) to the Ruby method that called them. */
static uint32_t named_chain(const rp_regress *r, const tested *t, uint32_t chain)
{
    size_t count = r->chains.count;
    while (is_c_method(r, r->chain[chain].name)) {
        uint32_t next = RP_IDX_NONE;
        for (uint32_t c = 0; c < count; c++)
            if (r->chain[c].parent == chain && (next == RP_IDX_NONE || t[c].r.target_ms > t[next].r.target_ms))
                next = c;
        if (next == RP_IDX_NONE)
            break;
        chain = next;
    }
    return chain;
}

/* Tests chain `c`: whether it can be compared (heavy enough, with enough
 * to be measured against: a chain alone under its shorter one has no
 * siblings to part from, and is its shorter one's), and whether it grew.
 * out->r's medians are filled either way. */
static bool test_chain(const rp_regress *r, uint32_t c, side_figures *b, side_figures *t, double tick, double *vb,
                       double *vt, tested *out, double *spread)
{
    size_t n = r->base.runs, m = r->target.runs;
    double factor = 1.0 + r->pct / 100.0;
    uint32_t parent = r->chain[c].parent;
    figures_of(&r->base, c, parent, b);
    figures_of(&r->target, c, parent, t);
    out->regressed = false;
    out->r = (rp_regression){c, r->chain[c].name, b->median_ms, t->median_ms, 0, 1, false};
    double least = RP_REGRESS_MIN_SAMPLES * tick;
    bool heavy = (b->share >= RP_REGRESS_MIN_SHARE && b->median_ms >= least) ||
                 (t->share >= RP_REGRESS_MIN_SHARE && t->median_ms >= least);
    bool alone = b->median_rest < least || t->median_rest < least;
    if (!heavy || (alone && parent != RP_IDX_NONE))
        return false;
    bool in_ms = alone; /* a method that is nearly all of its runs: its milliseconds */
    measured(b, n, in_ms, tick, vb);
    measured(t, m, in_ms, tick, vt);
    double sb = spread_of(vb, n), st = spread_of(vt, m);
    *spread = sb >= 0 && st >= 0 ? (sb + st) / 2 : -1;
    double sorted_b[n ? n : 1], sorted_t[m ? m : 1];
    memcpy(sorted_b, vb, n * sizeof(*vb));
    memcpy(sorted_t, vt, m * sizeof(*vt));
    double mid_b = n ? median(sorted_b, n) : 0, mid_t = m ? median(sorted_t, m) : 0;
    noise_side nb = {b->median_ms, in_ms ? 0 : b->median_rest, n}, nt = {t->median_ms, in_ms ? 0 : t->median_rest, m};
    double p = fmax(rp_mann_whitney_p(u_grown(vb, n, vt, m, factor), n, m), noise_p(&nb, &nt, factor, tick));
    double growth = mid_b > 0 ? (mid_t / mid_b - 1.0) * 100.0 : INFINITY;
    /* A method's own time against the rest of the run: the rest may be
     * little besides the process's start, whose loading varies run to run
     * more than its samples say; its milliseconds must have grown too. */
    bool ms_grew = parent != RP_IDX_NONE || in_ms || t->median_ms > b->median_ms * factor;
    double alpha = parent == RP_IDX_NONE ? RP_REGRESS_ALPHA_WHOLE : RP_REGRESS_ALPHA;
    out->regressed = p < alpha && growth > r->pct && ms_grew;
    out->r.growth_pct = growth;
    out->r.p = p;
    out->r.in_ms = in_ms;
    return true;
}

/* The least one-sided p a side of n and another of m runs can give. */
static double least_p(size_t n, size_t m)
{
    return rp_mann_whitney_p((double)(n * m), n, m);
}

/* The least growth (percent) found 4 times in 5 at a spread of `noise`
 * (log scale) a run: the threshold, and z(α) + 0.842 standard errors of
 * the difference of the two sides' medians above it (the rank test is
 * about as powerful as the t test on these); -1 when the runs are too
 * few for any p below RP_REGRESS_ALPHA. */
static double detectable_pct(double pct, double noise, size_t n, size_t m)
{
    if (n == 0 || m == 0 || least_p(n, m) >= RP_REGRESS_ALPHA || noise < 0)
        return -1;
    double se = noise * sqrt(1.0 / (double)n + 1.0 / (double)m);
    return (exp(log1p(pct / 100.0) + (RP_REGRESS_ALPHA_Z + 0.842) * se) - 1.0) * 100.0;
}

/* Keeps regression `g` among those found: one per method named, its
 * heaviest chain. */
static int keep_found(rp_regress *r, size_t *cap, const rp_regression *g)
{
    for (size_t i = 0; i < r->found_count; i++)
        if (r->found[i].method == g->method) {
            if (g->target_ms > r->found[i].target_ms)
                r->found[i] = *g;
            return 0;
        }
    if (RP_VEC_RESERVE(r->found, *cap, r->found_count + 1) != 0)
        return -1;
    r->found[r->found_count++] = *g;
    return 0;
}

int rp_regress_compute(rp_regress *r)
{
    size_t n = r->base.runs, m = r->target.runs, count = r->chains.count, cap = 0, spreads_count = 0;
    double tick = fmax(tick_ms(&r->base), tick_ms(&r->target));
    double *buf = calloc(4 * (n + m) + 2, sizeof(*buf));
    double *spreads = calloc(count + 1, sizeof(*spreads));
    tested *t = calloc(count + 1, sizeof(*t));
    if (!buf || !spreads || !t) {
        free(buf);
        free(spreads);
        free(t);
        return -1;
    }
    side_figures fb = {.ms = buf, .rest = buf + n}, ft = {.ms = buf + 2 * n, .rest = buf + 2 * n + m};
    double *vb = buf + 2 * (n + m), *vt = vb + n;
    for (uint32_t c = 0; c < count; c++) {
        double spread;
        if (!test_chain(r, c, &fb, &ft, tick, vb, vt, &t[c], &spread))
            continue;
        r->compared++;
        if (spread >= 0)
            spreads[spreads_count++] = spread;
    }
    /* Named: where the regressed paths part from the unchanged ones — a
     * chain that grew against its siblings — and a method whose own time
     * grew against the rest of the run where no such parting explains it. */
    bool *explained = calloc(count + 1, sizeof(*explained));
    int rc = explained ? 0 : -1;
    for (uint32_t c = 0; rc == 0 && c < count; c++)
        if (t[c].regressed && r->chain[c].parent != RP_IDX_NONE) {
            uint32_t root = c;
            while (r->chain[root].parent != RP_IDX_NONE)
                root = r->chain[root].parent;
            explained[root] = true;
        }
    for (uint32_t c = 0; rc == 0 && c < count; c++) {
        if (!t[c].regressed || (r->chain[c].parent == RP_IDX_NONE && explained[c]))
            continue;
        rp_regression g = t[c].r;
        uint32_t named = named_chain(r, t, c);
        g.chain = named;
        g.method = r->chain[named].name;
        rc = keep_found(r, &cap, &g);
    }
    free(explained);
    r->noise = spreads_count ? median(spreads, spreads_count) : -1;
    r->detectable_pct = detectable_pct(r->pct, r->noise, n, m);
    free(buf);
    free(spreads);
    free(t);
    if (rc == 0 && r->found_count)
        qsort(r->found, r->found_count, sizeof(*r->found), most_regressed);
    return rc;
}

/* The chain's methods from its outermost caller in to its leaf, into
 * `out` as "A → B → C" (cut to `size`). */
static const char *chain_text(const rp_regress *r, uint32_t chain, char *out, size_t size)
{
    out[0] = '\0';
    for (uint32_t c = chain; c != RP_IDX_NONE; c = r->chain[c].parent) {
        size_t len = strlen(out);
        snprintf(out + len, size - len, "%s%s", len ? " → " : "", rp_strtab_get(&r->names, r->chain[c].name, NULL));
    }
    return out;
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
    rp_json_member_int(&j, "paths_compared", (int64_t)r->compared);
    rp_json_key(&j, "can_be_significant");
    rp_json_bool(&j, least_p(r->base.runs, r->target.runs) < RP_REGRESS_ALPHA);
    rp_json_key(&j, "noise_pct");
    if (r->noise >= 0)
        rp_json_double(&j, r->noise * 100);
    else
        rp_json_null(&j);
    rp_json_key(&j, "detectable_growth_pct");
    if (r->detectable_pct >= 0)
        rp_json_double(&j, r->detectable_pct);
    else
        rp_json_null(&j);
    rp_json_key(&j, "regressed");
    rp_json_begin_array(&j);
    for (size_t i = 0; i < r->found_count; i++) {
        const rp_regression *g = &r->found[i];
        rp_json_begin_object(&j);
        rp_json_member_cstring(&j, "method", rp_strtab_get(&r->names, g->method, NULL));
        rp_json_key(&j, "path"); /* from the method named in to where the time was spent */
        rp_json_begin_array(&j);
        for (uint32_t c = g->chain; c != RP_IDX_NONE; c = r->chain[c].parent)
            rp_json_cstring(&j, rp_strtab_get(&r->names, r->chain[c].name, NULL));
        rp_json_end_array(&j);
        rp_json_member_cstring(&j, "measured", g->in_ms ? "ms" : "against the rest of the run");
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

static void write_power(rp_out *out, const rp_regress *r)
{
    if (r->detectable_pct < 0 || r->noise < 0)
        return;
    rp_out_printf(out, "At these runs' noise (a path's time moves about %.1f%% from run to run, the median of "
                       "%zu paths compared), a path that grew %.0f%% or more is found 4 times in 5.\n",
                  r->noise * 100, r->compared, ceil(r->detectable_pct));
}

static void write_text(rp_out *out, const rp_regress *r)
{
    rp_out_printf(out, "Regression check: each call path's time per run against the rest of its run, base %zu run%s, "
                       "target %zu run%s; a path regressed when it grew by more than %g%% (one-sided rank test, "
                       "p < %g; a method's own time as a whole, p < %g)\n",
                  r->base.runs, r->base.runs == 1 ? "" : "s", r->target.runs, r->target.runs == 1 ? "" : "s",
                  r->pct, RP_REGRESS_ALPHA, RP_REGRESS_ALPHA_WHOLE);
    if (least_p(r->base.runs, r->target.runs) >= RP_REGRESS_ALPHA)
        rp_out_printf(out, "With %zu and %zu run%s no method can be called significant (the least p is %.2f): "
                           "give each side several runs, a directory with one run per entry.\n",
                      r->base.runs, r->target.runs, r->target.runs == 1 ? "" : "s",
                      least_p(r->base.runs, r->target.runs));
    write_power(out, r);
    if (r->found_count == 0) {
        rp_out_printf(out, "No method regressed (%zu call paths compared, each at least %g%% of a run and %d samples).\n",
                      r->compared, RP_REGRESS_MIN_SHARE * 100, RP_REGRESS_MIN_SAMPLES);
        return;
    }
    rp_out_printf(out, "%zu method%s regressed (%zu call paths compared), most first:\n\n", r->found_count,
                  r->found_count == 1 ? "" : "s", r->compared);
    rp_out_printf(out, "  %12s %12s %9s %8s  %s\n", "base ms/run", "target ms/run", "growth", "p", "method");
    for (size_t i = 0; i < r->found_count; i++) {
        const rp_regression *g = &r->found[i];
        char growth[16], path[4096];
        if (isinf(g->growth_pct))
            snprintf(growth, sizeof(growth), "new");
        else
            snprintf(growth, sizeof(growth), "%+.1f%%", g->growth_pct);
        rp_out_printf(out, "  %12.1f %12.1f %9s %8.4f  %s\n", g->base_ms, g->target_ms, growth, g->p,
                      rp_strtab_get(&r->names, g->method, NULL));
        if (r->chain[g->chain].parent != RP_IDX_NONE)
            rp_out_printf(out, "  %44s  where the time went: %s\n", "", chain_text(r, g->chain, path, sizeof(path)));
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
