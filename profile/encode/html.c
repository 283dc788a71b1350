/*
 * profile/encode/html.c — the HTML viewer page. See html.h.
 *
 * The page is profile/viewer/viewer.html with each <!--rperf:NAME-->
 * marker replaced: the style and script (viewer.css, viewer.js), the HTML
 * sections (html_sections.c) and the data, one JSON document the script
 * reads:
 *
 *   mode, root_pid, total_ns, folded_nodes, folded_ns, fold_below_ns
 *   strings      every string of the profile
 *   frames       [label, path, line] per frame (string ids; line 0: none);
 *                one more frame at the end stands for "(other)"
 *   frame_code, libraries  whose code each frame is (my_code.h): -1 the
 *                application's, -2 a C method (its caller's), or an index
 *                into libraries, [name, directory] each: the "my code" view
 *   idle_waits   the methods where a server's thread waits for work
 *                (filter.h): idle outside requests
 *   frame_self_ns, frame_total_ns  with folded call paths only: each
 *                method's exact self time (per frame) and total time
 *                ([frame, ns] pairs), for the Top table of everything
 *   label_sets   [key, value, key, value, ...] per label set (string ids)
 *   processes    per label set: its %pid string id, or -1 (the root)
 *   nodes        [parent, frame] per call tree node after the root (node 0)
 *   leaves       [node, thread_seq, label_set, weight_ns] per weight
 *                ending at a node
 *   measure, unit  what the weights are ("time" in "ms"; "alloc" or
 *                "retained" in "objects", "retained-bytes" in "bytes")
 *   measures     with allocation sampling: per other measure's name, its
 *                own view — unit, total_ns, the folding members, the
 *                frame weights, nodes and leaves as above — which the
 *                script shows in place of the top level's when asked
 *   requests     with requests and jobs recorded (requests.h): endpoints
 *                [{name, count, p50_ns, p90_ns, p99_ns, max_ns, the split
 *                (wall_ns, cpu_ns, gvl_wait_ns, blocked_ns, gc_ns, queue_ns,
 *                other_ns), hist: [[bucket, count], ...]}] (requests.h's
 *                buckets), heaviest first, and slow [{endpoint, the split,
 *                status, span ("PID.N"), blocked_at and longest_block_ns
 *                when it blocked}], slowest first: the Requests tab
 *   slots        [start_ns, duration_ns] per file read, when some file is
 *                a part (RPERF_INTERVAL), or per stretch of a file whose
 *                raw samples say when they were taken (load.h): the time
 *                strip and the Threads tab; starts from
 *   slots_origin_ns  the earliest start (Unix time: JavaScript's numbers
 *                are exact to 2^53 only); slots_are: "parts" or "stretches". Each label set then has
 *                RP_SLOT_LABEL = the index of its file's slot.
 *   diff         on a differential page (diff --html): base_total_ns;
 *                per node after the root the base's total and self at
 *                the same path (base_ns, base_self_ns; -1: none); per
 *                frame the base's self time in the same method (label
 *                and path: base_frame_self_ns); and when both profiles
 *                recorded requests, "requests": the same of the base's
 *                time inside requests and jobs (%latency or %span)
 *   lines_view   with a line-level profile (frames carry lines): whether
 *                the page shows a frame per line at first (--lines) rather
 *                than per method
 *   sources      with a line-level profile, unless --no-source: per file
 *                path its "lines", or the "error" that kept it out
 *                (html_sources.h): the Source tab
 *
 * written with '<', '>' and '&' escaped so nothing in it ends the
 * <script> element it sits in.
 */
#include "html.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/json_writer.h"
#include "../profile_write.h"
#include "../../common/numfmt.h"
#include "../flatcum.h"
#include "../my_code.h"
#include "../filter.h"
#include "../schema.h"
#include "calltree.h"
#include "html_sections.h"
#include "html_sources.h"
#include "../viewer/viewer_assets.h"
#include "../../common/vec.h"

/* What a differential page knows of its base: the total; per node of the
 * page's tree the base's total and self at the same path (-1: none); per
 * frame the base's self time in the same method (label and path; 0:
 * none). */
typedef struct base_view {
    int64_t total;
    int64_t *ns, *self_ns, *frame_self_ns;
} base_view;

typedef struct page_writer {
    rp_html_page page;
    rp_calltree tree;
    /* A differential page: the base as a whole, and when both profiles
     * recorded requests the base's time inside them (has_requests). */
    bool diff, has_requests;
    base_view base, base_requests;
    rp_encode_opts opts;
} page_writer;

static void write_frames(rp_json *j, const rp_profile *p)
{
    rp_json_key(j, "frames");
    rp_json_begin_array(j);
    for (size_t i = 0; i < p->frame_count; i++) {
        rp_json_int(j, p->frames[i].label);
        rp_json_int(j, p->frames[i].path);
        rp_json_int(j, p->frames[i].line);
    }
    rp_json_int(j, -1); /* "(other)": no string of the profile names it */
    rp_json_int(j, -1);
    rp_json_int(j, 0);
    rp_json_end_array(j);
}

/* When call paths were folded, the tree no longer knows the methods
 * inside them: the exact self and total time of every method, for the
 * script's Top table of the whole profile (it counts folded time as
 * "(other)" only once a filter leaves it the tree alone). */
static void write_frame_weights(rp_json *j, const page_writer *w)
{
    const rp_profile *p = w->page.p;
    if (w->tree.folded_nodes == 0)
        return;
    rp_json_key(j, "frame_self_ns");
    rp_json_begin_array(j);
    for (size_t i = 0; i < p->frame_count; i++)
        rp_json_int(j, w->page.self_ns[i]);
    rp_json_end_array(j);
    rp_json_key(j, "frame_total_ns"); /* [frame, ns] per frame with weight */
    rp_json_begin_array(j);
    for (size_t i = 0; i < w->page.fc.cum_count; i++) {
        rp_json_int(j, w->page.fc.cum[i].frame);
        rp_json_int(j, w->page.fc.cum[i].weight);
    }
    rp_json_end_array(j);
}

/* Whose code each frame is (my_code.h), for the page's "my code" switch:
 * per frame -1 (the application's), -2 (a C method: its caller's) or the
 * index of its library in "libraries" ([name, directory] each). */
static int write_code(rp_json *j, const rp_profile *p)
{
    rp_frame_code fc;
    int rc = rp_frame_code_compute(p, &fc);
    if (rc == 0) {
        rp_json_key(j, "frame_code");
        rp_json_begin_array(j);
        for (size_t f = 0; f < p->frame_count; f++)
            rp_json_int(j, fc.code[f]);
        rp_json_int(j, RP_FRAME_APP); /* "(other)" */
        rp_json_end_array(j);
        rp_json_key(j, "libraries");
        rp_json_begin_array(j);
        for (uint32_t i = 0; i < fc.names.count; i++) {
            rp_json_begin_array(j);
            rp_json_cstring(j, rp_strtab_get(&fc.names, i, NULL));
            rp_json_string(j, rp_profile_str(p, fc.dirs[i].path), fc.dirs[i].len);
            rp_json_end_array(j);
        }
        rp_json_end_array(j);
    }
    rp_frame_code_free(&fc);
    return rc;
}

static void write_label_sets(rp_json *j, const rp_profile *p)
{
    rp_json_key(j, "label_sets");
    rp_json_begin_array(j);
    for (size_t s = 0; s < p->label_set_count; s++) {
        rp_json_begin_array(j);
        for (uint32_t i = 0; i < p->label_sets[s].count; i++) {
            const rp_label *l = &p->labels[p->label_sets[s].first + i];
            rp_json_int(j, l->key);
            rp_json_int(j, l->value);
        }
        rp_json_end_array(j);
    }
    rp_json_end_array(j);
    rp_json_key(j, "processes");
    rp_json_begin_array(j);
    for (size_t s = 0; s < p->label_set_count; s++) {
        uint32_t process = rp_profile_process_of(p, (uint32_t)s);
        rp_json_int(j, process == RP_IDX_NONE ? -1 : (int64_t)process);
    }
    rp_json_end_array(j);
}

static void write_tree(rp_json *j, const rp_profile *p, const rp_calltree *t)
{
    rp_json_key(j, "nodes");
    rp_json_begin_array(j);
    for (size_t n = 1; n < t->node_count; n++) {
        rp_json_int(j, t->nodes[n].parent);
        uint32_t frame = t->nodes[n].frame;
        rp_json_int(j, frame == RP_CALLTREE_OTHER ? (int64_t)p->frame_count : (int64_t)frame);
    }
    rp_json_end_array(j);
    rp_json_key(j, "leaves");
    rp_json_begin_array(j);
    for (size_t i = 0; i < t->leaves.count; i++) {
        const rp_sample *s = &t->leaves.samples[i];
        rp_json_int(j, s->stack);
        rp_json_int(j, s->thread_seq);
        rp_json_int(j, s->label_set);
        rp_json_int(j, s->weight);
    }
    rp_json_end_array(j);
}

static void write_int_array(rp_json *j, const char *key, const int64_t *v, size_t count)
{
    rp_json_key(j, key);
    rp_json_begin_array(j);
    for (size_t i = 0; i < count; i++)
        rp_json_int(j, v[i]);
    rp_json_end_array(j);
}

static void write_base_view(rp_json *j, const page_writer *w, const base_view *b)
{
    rp_json_member_int(j, "base_total_ns", b->total);
    write_int_array(j, "base_ns", b->ns + 1, w->tree.node_count - 1);
    write_int_array(j, "base_self_ns", b->self_ns + 1, w->tree.node_count - 1);
    write_int_array(j, "base_frame_self_ns", b->frame_self_ns, w->page.p->frame_count);
}

static void write_diff(rp_json *j, const page_writer *w)
{
    if (!w->diff)
        return;
    rp_json_key(j, "diff");
    rp_json_begin_object(j);
    write_base_view(j, w, &w->base);
    if (w->has_requests) {
        rp_json_key(j, "requests");
        rp_json_begin_object(j);
        write_base_view(j, w, &w->base_requests);
        rp_json_end_object(j);
    }
    rp_json_end_object(j);
}

/* The files' stretches of time, for the time strip and the Threads tab:
 * only for parts, or raw samples with their times, which say how the
 * profile changed over the run. */
static void write_slots(rp_json *j, const rp_profile *p)
{
    if (!(p->load.has_parts || p->load.has_sample_times) || p->load.slot_count < 2)
        return;
    int64_t origin = INT64_MAX;
    for (size_t i = 0; i < p->load.slot_count; i++)
        if (p->load.slots[i].start_ns < origin)
            origin = p->load.slots[i].start_ns;
    rp_json_member_int(j, "slots_origin_ns", origin);
    rp_json_member_cstring(j, "slots_are", p->load.has_parts ? "parts" : "stretches");
    rp_json_key(j, "slots");
    rp_json_begin_array(j);
    for (size_t i = 0; i < p->load.slot_count; i++) {
        rp_json_int(j, p->load.slots[i].start_ns - origin);
        rp_json_int(j, p->load.slots[i].duration_ns);
    }
    rp_json_end_array(j);
}

/* What a measure's page shows: its totals, frame weights and tree. */
static void write_view(rp_json *j, const page_writer *w)
{
    const rp_profile *p = w->page.p;
    rp_json_member_cstring(j, "measure", rp_measures[p->measure].name);
    rp_json_member_cstring(j, "unit", rp_measures[p->measure].unit);
    rp_json_member_int(j, "total_ns", w->page.fc.total);
    rp_json_member_int(j, "folded_nodes", (int64_t)w->tree.folded_nodes);
    rp_json_member_int(j, "folded_ns", w->tree.folded_weight);
    rp_json_member_int(j, "fold_below_ns", w->tree.fold_below);
    write_frame_weights(j, w);
    write_tree(j, p, &w->tree);
}

static int64_t *self_per_frame(const rp_profile *p, const rp_flatcum *fc);

/* The views of the measures `p` does not show, with allocation sampling:
 * each built from a copy of `p` whose samples are that measure's. */
static int write_other_measures(rp_json *j, const rp_profile *p)
{
    if (!rp_profile_has_memory(p))
        return 0;
    rp_json_key(j, "measures");
    rp_json_begin_object(j);
    int rc = 0;
    for (int m = 0; m < RP_MEASURES && rc == 0; m++) {
        if ((rp_measure)m == p->measure)
            continue;
        rp_profile view = *p; /* shares every table; only read */
        view.samples = *rp_profile_table_const(p, (rp_measure)m);
        view.measure = (rp_measure)m;
        page_writer w = {.page = {.p = &view}};
        rc = -1;
        if (rp_flatcum_compute(&view, &w.page.fc) != 0)
            break;
        w.page.self_ns = self_per_frame(&view, &w.page.fc);
        if (w.page.self_ns &&
            rp_calltree_build(&view, w.page.fc.total / RP_HTML_FOLD_DIVISOR, RP_HTML_MAX_NODES, &w.tree) == 0) {
            rp_json_key(j, rp_measures[m].name);
            rp_json_begin_object(j);
            write_view(j, &w);
            rp_json_end_object(j);
            rp_calltree_free(&w.tree);
            rc = 0;
        }
        free(w.page.self_ns);
        rp_flatcum_free(&w.page.fc);
    }
    rp_json_end_object(j);
    return rc;
}

static int heavier_endpoint(const void *a, const void *b)
{
    const rp_endpoint *x = *(const rp_endpoint *const *)a, *y = *(const rp_endpoint *const *)b;
    return x->sum.wall_ns != y->sum.wall_ns ? (x->sum.wall_ns > y->sum.wall_ns ? -1 : 1) : 0;
}

static int slower_span(const void *a, const void *b)
{
    const rp_slow_span *x = a, *y = b;
    return x->split.wall_ns != y->split.wall_ns ? (x->split.wall_ns > y->split.wall_ns ? -1 : 1) : 0;
}

static void write_split(rp_json *j, const rp_span_split *s)
{
    rp_json_member_int(j, "wall_ns", s->wall_ns);
    rp_json_member_int(j, "cpu_ns", s->cpu_ns);
    rp_json_member_int(j, "gvl_wait_ns", s->gvl_wait_ns);
    rp_json_member_int(j, "blocked_ns", s->blocked_ns);
    rp_json_member_int(j, "gc_ns", s->gc_ns);
    rp_json_member_int(j, "queue_ns", s->queue_ns);
    rp_json_member_int(j, "other_ns", rp_split_other_ns(s));
}

static void write_endpoint(rp_json *j, const rp_profile *p, const rp_endpoint *e)
{
    rp_json_begin_object(j);
    rp_json_member_cstring(j, "name", rp_profile_str(p, e->name));
    rp_json_member_int(j, "count", e->count);
    rp_json_member_int(j, "p50_ns", (int64_t)rp_endpoint_quantile(e, 0.50));
    rp_json_member_int(j, "p90_ns", (int64_t)rp_endpoint_quantile(e, 0.90));
    rp_json_member_int(j, "p99_ns", (int64_t)rp_endpoint_quantile(e, 0.99));
    rp_json_member_int(j, "max_ns", e->max_ns);
    write_split(j, &e->sum);
    rp_json_key(j, "hist");
    rp_profile_write_histogram(j, e);
    rp_json_end_object(j);
}

/* The Requests tab's data, when there are requests. */
static int write_requests(rp_json *j, const rp_profile *p)
{
    const rp_requests *r = &p->requests;
    if (r->count == 0)
        return 0;
    const rp_endpoint **rows = rp_alloc_array(r->count, sizeof(*rows));
    rp_slow_span *slow = rp_alloc_array(r->slow_count ? r->slow_count : 1, sizeof(*slow));
    if (!rows || !slow) {
        free(rows);
        free(slow);
        return -1;
    }
    for (size_t i = 0; i < r->count; i++)
        rows[i] = &r->endpoints[i];
    qsort(rows, r->count, sizeof(*rows), heavier_endpoint);
    if (r->slow_count)
        memcpy(slow, r->slow, r->slow_count * sizeof(*slow));
    qsort(slow, r->slow_count, sizeof(*slow), slower_span);
    rp_json_key(j, "requests");
    rp_json_begin_object(j);
    rp_json_key(j, "endpoints");
    rp_json_begin_array(j);
    for (size_t i = 0; i < r->count; i++)
        write_endpoint(j, p, rows[i]);
    rp_json_end_array(j);
    rp_json_key(j, "slow");
    rp_json_begin_array(j);
    for (size_t i = 0; i < r->slow_count && i < RP_HTML_SLOW_ROWS; i++) {
        rp_json_begin_object(j);
        rp_json_member_cstring(j, "endpoint", rp_profile_str(p, slow[i].endpoint));
        write_split(j, &slow[i].split);
        rp_json_member_int(j, "status", slow[i].status);
        char span[RP_SPAN_LABEL_MAX] = "";
        if (slow[i].span_id)
            rp_span_label(slow[i].span_id, span);
        rp_json_member_cstring(j, "span", span);
        if (slow[i].blocked_at != RP_IDX_NONE) {
            rp_json_member_cstring(j, "blocked_at", rp_profile_str(p, slow[i].blocked_at));
            rp_json_member_int(j, "longest_block_ns", slow[i].longest_block_ns);
        }
        rp_json_end_object(j);
    }
    rp_json_end_array(j);
    rp_json_end_object(j);
    free(rows);
    free(slow);
    return 0;
}

static int write_data(rp_out *out, const page_writer *w)
{
    const rp_profile *p = w->page.p;
    rp_json j;
    rp_json_init(&j, out);
    j.html_safe = true;
    rp_json_begin_object(&j);
    rp_json_member_cstring(&j, "mode", rp_mode_name(p->meta.mode));
    rp_json_member_int(&j, "root_pid", p->meta.pid);
    rp_json_key(&j, "strings");
    rp_json_begin_array(&j);
    for (size_t i = 0; i < p->strings.count; i++) {
        size_t len;
        const char *s = rp_strtab_get(&p->strings, (uint32_t)i, &len);
        rp_json_string(&j, s, len);
    }
    rp_json_end_array(&j);
    write_frames(&j, p);
    int code_rc = write_code(&j, p);
    rp_json_key(&j, "idle_waits"); /* filter.h */
    rp_json_begin_array(&j);
    for (const char *const *m = rp_idle_wait_methods; *m; m++)
        rp_json_cstring(&j, *m);
    rp_json_end_array(&j);
    write_label_sets(&j, p);
    write_view(&j, w);
    int rc = code_rc != 0 ? code_rc : w->diff ? 0 : write_other_measures(&j, p);
    if (rc == 0 && !w->diff)
        rc = write_requests(&j, p);
    write_slots(&j, p);
    write_diff(&j, w);
    if (rc == 0 && rp_profile_has_lines(p)) {
        rp_json_key(&j, "lines_view");
        rp_json_bool(&j, w->opts.lines);
        if (!w->opts.no_source && !w->diff)
            rc = rp_html_write_sources(&j, p);
    }
    rp_json_end_object(&j);
    return rc;
}

static int write_folded_note(rp_out *out, const page_writer *w)
{
    if (w->tree.folded_nodes == 0)
        return 0;
    double pct = w->page.fc.total > 0 ? (double)w->tree.folded_weight * 100.0 / (double)w->page.fc.total : 0;
    char count[RP_NUMFMT_MAX], below[RP_NUMFMT_MAX];
    rp_out_printf(out, "<p id=\"folded-note\">%s call paths lighter than %s ms each (%.2f%% of the time in "
                       "all) are folded into one &ldquo;(other)&rdquo; box under their caller, so that the "
                       "page stays small. <code>rperf-analyze report</code> lists every method.</p>\n",
                  rp_fmt_int((int64_t)w->tree.folded_nodes, count), rp_fmt_ms(w->tree.fold_below, below), pct);
    return 0;
}

static int write_title(rp_out *out, const page_writer *w)
{
    if (w->diff)
        rp_out_puts(out, "diff, ");
    rp_html_command(out, w->page.p);
    return 0;
}

static int write_style(rp_out *out, const page_writer *w)
{
    (void)w;
    rp_out_write(out, rp_viewer_css, rp_viewer_css_len);
    return 0;
}

/* The views first: viewer.js sets them up. */
static int write_script(rp_out *out, const page_writer *w)
{
    (void)w;
    rp_out_write(out, rp_viewer_sandwich_js, rp_viewer_sandwich_js_len);
    rp_out_write(out, rp_viewer_source_js, rp_viewer_source_js_len);
    rp_out_write(out, rp_viewer_threads_js, rp_viewer_threads_js_len);
    rp_out_write(out, rp_viewer_strip_js, rp_viewer_strip_js_len);
    rp_out_write(out, rp_viewer_requests_js, rp_viewer_requests_js_len);
    rp_out_write(out, rp_viewer_js, rp_viewer_js_len);
    return 0;
}

static int write_summary(rp_out *out, const page_writer *w) { return rp_html_summary(out, &w->page); }

static const struct marker {
    const char *name;
    int (*write)(rp_out *out, const page_writer *w);
} markers[] = {
    {"title", write_title},   {"style", write_style}, {"summary", write_summary},
    {"folded", write_folded_note}, {"data", write_data}, {"script", write_script},
};

#define MARKER_OPEN "<!--rperf:"
#define MARKER_CLOSE "-->"

/* Copies the page template to `out`, replacing each marker. A marker the
 * table does not know is a build defect, caught by the encoder's test. */
static int write_page(rp_out *out, const page_writer *w)
{
    const char *t = (const char *)rp_viewer_html, *end = t + rp_viewer_html_len;
    while (t < end) {
        const char *open = memmem(t, (size_t)(end - t), MARKER_OPEN, strlen(MARKER_OPEN));
        if (!open) {
            rp_out_write(out, t, (size_t)(end - t));
            break;
        }
        rp_out_write(out, t, (size_t)(open - t));
        const char *name = open + strlen(MARKER_OPEN);
        const char *close = memmem(name, (size_t)(end - name), MARKER_CLOSE, strlen(MARKER_CLOSE));
        if (!close)
            return -1;
        size_t len = (size_t)(close - name);
        size_t i = 0;
        while (i < sizeof(markers) / sizeof(markers[0]) &&
               !(strlen(markers[i].name) == len && memcmp(markers[i].name, name, len) == 0))
            i++;
        if (i == sizeof(markers) / sizeof(markers[0]) || markers[i].write(out, w) != 0)
            return -1;
        t = close + strlen(MARKER_CLOSE);
    }
    return 0;
}

static int64_t *self_per_frame(const rp_profile *p, const rp_flatcum *fc)
{
    int64_t *self = rp_calloc_array(p->frame_count, sizeof(*self));
    for (size_t i = 0; self && i < fc->flat_count; i++)
        self[fc->flat[i].frame] = fc->flat[i].weight;
    return self;
}

/* Per label set of `p`: whether it is inside a request or job (filter.h);
 * NULL when none is (or out of memory: *failed). */
static bool *request_sets(const rp_profile *p, bool *failed)
{
    *failed = false;
    if (!rp_profile_has_requests_labels(p))
        return NULL;
    bool *inside = rp_alloc_array(p->label_set_count + 1, sizeof(*inside));
    *failed = inside == NULL;
    for (size_t i = 0; inside && i < p->label_set_count; i++)
        inside[i] = rp_label_set_in_request(p, (uint32_t)i);
    return inside;
}

static int base_view_alloc(base_view *b, size_t nodes, size_t frames)
{
    b->ns = rp_alloc_array(nodes, sizeof(*b->ns));
    b->self_ns = rp_alloc_array(nodes, sizeof(*b->self_ns));
    b->frame_self_ns = rp_calloc_array(frames + 1, sizeof(*b->frame_self_ns));
    return b->ns && b->self_ns && b->frame_self_ns ? 0 : -1;
}

static void base_view_free(base_view *b)
{
    free(b->ns);
    free(b->self_ns);
    free(b->frame_self_ns);
}

/* The page's "(other)" nodes stand for the children of their parent it
 * left out (too light to draw): in the base, what the parent's match
 * holds below it but not under the matches of the siblings shown. Without
 * it the base of every box above an "(other)" — a library's run of frames
 * summed from its nodes, on the page — came out short by its time, and a
 * profile compared with itself showed a change. */
static void fill_other_nodes(const page_writer *w, base_view *b, const int64_t *self, const int64_t *total,
                             const uint32_t *matched)
{
    const rp_calltree *t = &w->tree;
    int64_t *shown = rp_calloc_array(t->node_count, sizeof(*shown)); /* per node: its matched children's */
    if (!shown)
        return; /* out of memory: "(other)" stays without a base, as before */
    for (size_t n = 1; n < t->node_count; n++)
        if (matched[n] != RP_IDX_NONE)
            shown[t->nodes[n].parent] += total[matched[n]];
    for (size_t n = 1; n < t->node_count; n++) {
        uint32_t parent = t->nodes[n].parent, in_base = matched[parent];
        if (t->nodes[n].frame != RP_CALLTREE_OTHER || in_base == RP_IDX_NONE)
            continue;
        int64_t left_out = total[in_base] - self[in_base] - shown[parent];
        b->ns[n] = b->self_ns[n] = left_out > 0 ? left_out : 0;
    }
    free(shown);
}

/* The base seen as `b` from its full tree's per node self weights
 * (`self`, which gives `total` by summing up to the root): per node of
 * the page's tree through `matched`, per method of the page through
 * `method_of` (a base node's method id; the page's frames' ids follow). */
static void fill_base_view(page_writer *w, base_view *b, const rp_calltree *base_tree, const int64_t *self,
                           int64_t *total, const uint32_t *matched, const uint32_t *base_method,
                           const uint32_t *page_method, int64_t *by_method)
{
    size_t count = base_tree->node_count;
    memcpy(total, self, count * sizeof(*total));
    for (size_t n = count; n-- > 1;)
        total[base_tree->nodes[n].parent] += total[n];
    b->total = count ? total[0] : 0;
    for (size_t n = 0; n < w->tree.node_count; n++) {
        bool found = matched[n] != RP_IDX_NONE;
        b->ns[n] = found ? total[matched[n]] : -1;
        b->self_ns[n] = found ? self[matched[n]] : -1;
    }
    fill_other_nodes(w, b, self, total, matched);
    for (size_t n = 1; n < count; n++)
        if (base_method[n] != RP_IDX_NONE)
            by_method[base_method[n]] += self[n];
    for (size_t f = 0; f < w->page.p->frame_count; f++)
        b->frame_self_ns[f] = page_method[f] != RP_IDX_NONE ? by_method[page_method[f]] : 0;
}

/* Method ids (calltree.h) of the base tree's nodes and of the page's
 * frames, in one numbering. */
static int number_methods(const page_writer *w, const rp_calltree *base_tree, const rp_profile *base,
                          uint32_t *base_method, uint32_t *page_method, size_t *method_count)
{
    rp_method_ids ids;
    rp_method_ids_init(&ids);
    int rc = 0;
    base_method[0] = RP_IDX_NONE;
    for (size_t n = 1; rc == 0 && n < base_tree->node_count; n++) {
        uint32_t f = base_tree->nodes[n].frame;
        base_method[n] = f == RP_CALLTREE_OTHER ? RP_IDX_NONE : rp_method_id(&ids, base, f);
        rc = f != RP_CALLTREE_OTHER && base_method[n] == RP_IDX_NONE ? -1 : 0;
    }
    for (size_t f = 0; rc == 0 && f < w->page.p->frame_count; f++)
        rc = (page_method[f] = rp_method_id(&ids, w->page.p, (uint32_t)f)) == RP_IDX_NONE ? -1 : 0;
    *method_count = ids.pairs.count;
    rp_method_ids_free(&ids);
    return rc;
}

/* Per node of the base tree, the self weight inside requests and jobs. */
static void self_in_requests(const rp_calltree *base_tree, const bool *inside, int64_t *self)
{
    memset(self, 0, base_tree->node_count * sizeof(*self));
    for (size_t i = 0; i < base_tree->leaves.count; i++) {
        const rp_sample *s = &base_tree->leaves.samples[i];
        if (inside[s->label_set])
            self[s->stack] += s->weight;
    }
}

/* Compares the page's tree with `base`'s full tree path by path, and its
 * methods with the base's; inside requests too when both recorded them. */
static int match_base(page_writer *w, const rp_profile *base)
{
    rp_calltree base_tree;
    if (rp_calltree_build(base, 0, 0, &base_tree) != 0)
        return -1;
    w->diff = true;
    size_t nodes = w->tree.node_count, frames = w->page.p->frame_count, count = base_tree.node_count;
    size_t methods = 0;
    bool failed_page, failed_base;
    bool *page_inside = request_sets(w->page.p, &failed_page), *base_inside = request_sets(base, &failed_base);
    w->has_requests = page_inside && base_inside;
    uint32_t *matched = rp_alloc_array(nodes, sizeof(*matched));
    uint32_t *base_method = rp_alloc_array(count, sizeof(*base_method));
    uint32_t *page_method = rp_alloc_array(frames + 1, sizeof(*page_method));
    int64_t *self = rp_alloc_array(count, sizeof(*self)), *total = rp_alloc_array(count, sizeof(*total));
    int64_t *by_method = NULL;
    int rc = -1;
    if (!failed_page && !failed_base && matched && base_method && page_method && self && total &&
        base_view_alloc(&w->base, nodes, frames) == 0 &&
        (!w->has_requests || base_view_alloc(&w->base_requests, nodes, frames) == 0) &&
        rp_calltree_match(&w->tree, w->page.p, &base_tree, base, matched) == 0 &&
        number_methods(w, &base_tree, base, base_method, page_method, &methods) == 0 &&
        (by_method = rp_calloc_array(methods + 1, sizeof(*by_method))) != NULL) {
        rp_calltree_self(&base_tree, self);
        fill_base_view(w, &w->base, &base_tree, self, total, matched, base_method, page_method, by_method);
        if (w->has_requests) {
            self_in_requests(&base_tree, base_inside, self);
            memset(by_method, 0, (methods + 1) * sizeof(*by_method));
            fill_base_view(w, &w->base_requests, &base_tree, self, total, matched, base_method, page_method,
                           by_method);
        }
        rc = 0;
    }
    free(by_method);
    free(self);
    free(total);
    free(page_method);
    free(base_method);
    free(matched);
    free(page_inside);
    free(base_inside);
    rp_calltree_free(&base_tree);
    return rc;
}

/* The page of `p`, compared with `base` when it is not NULL. */
static int write_html(const rp_profile *p, const rp_profile *base, rp_out *out, const rp_encode_opts *opts)
{
    page_writer w = {.page = {.p = p}, .opts = *opts};
    if (rp_flatcum_compute(p, &w.page.fc) != 0)
        return -1;
    int rc = -1;
    w.page.self_ns = self_per_frame(p, &w.page.fc);
    if (w.page.self_ns &&
        rp_calltree_build(p, w.page.fc.total / RP_HTML_FOLD_DIVISOR, RP_HTML_MAX_NODES, &w.tree) == 0) {
        if (!base || match_base(&w, base) == 0)
            rc = write_page(out, &w);
        rp_calltree_free(&w.tree);
    }
    base_view_free(&w.base);
    base_view_free(&w.base_requests);
    free(w.page.self_ns);
    rp_flatcum_free(&w.page.fc);
    return rc;
}

int rp_html_write(const rp_profile *p, rp_out *out, const rp_encode_opts *opts)
{
    return write_html(p, NULL, out, opts); /* the page shows everything; it filters by itself */
}

int rp_html_write_diff(const rp_profile *base, const rp_profile *target, rp_out *out)
{
    return write_html(target, base, out, &RP_ENCODE_OPTS_DEFAULT);
}
