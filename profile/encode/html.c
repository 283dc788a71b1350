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
 *                frame the base's self and total of the same method
 *                (label and path: base_frame_self_ns, base_frame_total_ns)
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
#include "calltree.h"
#include "html_sections.h"
#include "html_sources.h"
#include "../viewer/viewer_assets.h"
#include "../../common/vec.h"

typedef struct page_writer {
    rp_html_page page;
    rp_calltree tree;
    /* A differential page: the base's total; per node of the tree the
     * base's total and self at the same path (-1: none); per frame the
     * base's self and total of the same method (0: none). NULL
     * otherwise. */
    int64_t *base_ns, *base_self_ns;
    int64_t *base_frame_self_ns, *base_frame_total_ns;
    int64_t base_total;
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
    const char *app_dir = p->meta.cwd != RP_IDX_NONE ? rp_profile_str(p, p->meta.cwd) : NULL;
    rp_strtab names; /* the libraries' names, ids in order of first use */
    rp_strtab_init(&names);
    struct library_dir {
        const char *path; /* the profile's string: its first len bytes */
        size_t len;
    } *dirs = NULL;
    size_t dirs_cap = 0;
    int rc = 0;
    rp_json_key(j, "frame_code");
    rp_json_begin_array(j);
    for (size_t f = 0; f < p->frame_count && rc == 0; f++) {
        const char *path = rp_profile_str(p, p->frames[f].path);
        rp_code_origin o = rp_code_of(rp_profile_str(p, p->frames[f].label), path, app_dir);
        if (o.code != RP_CODE_LIBRARY) {
            rp_json_int(j, o.code == RP_CODE_APP ? -1 : -2);
            continue;
        }
        size_t known = names.count;
        uint32_t id = rp_strtab_intern(&names, o.name, strlen(o.name));
        if (id == RP_IDX_NONE || (id == known && RP_VEC_RESERVE(dirs, dirs_cap, known + 1) != 0))
            rc = -1;
        else if (id == known)
            dirs[id] = (struct library_dir){path, o.dir_len};
        rp_json_int(j, id);
    }
    rp_json_int(j, -1); /* "(other)" */
    rp_json_end_array(j);
    rp_json_key(j, "libraries");
    rp_json_begin_array(j);
    for (size_t i = 0; i < names.count && rc == 0; i++) {
        rp_json_begin_array(j);
        rp_json_cstring(j, rp_strtab_get(&names, (uint32_t)i, NULL));
        rp_json_string(j, dirs[i].path, dirs[i].len);
        rp_json_end_array(j);
    }
    rp_json_end_array(j);
    free(dirs);
    rp_strtab_free(&names);
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

static void write_diff(rp_json *j, const page_writer *w)
{
    if (!w->base_ns)
        return;
    rp_json_key(j, "diff");
    rp_json_begin_object(j);
    rp_json_member_int(j, "base_total_ns", w->base_total);
    write_int_array(j, "base_ns", w->base_ns + 1, w->tree.node_count - 1);
    write_int_array(j, "base_self_ns", w->base_self_ns + 1, w->tree.node_count - 1);
    write_int_array(j, "base_frame_self_ns", w->base_frame_self_ns, w->page.p->frame_count);
    write_int_array(j, "base_frame_total_ns", w->base_frame_total_ns, w->page.p->frame_count);
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
    write_label_sets(&j, p);
    write_view(&j, w);
    int rc = code_rc != 0 ? code_rc : w->base_ns ? 0 : write_other_measures(&j, p);
    if (rc == 0 && !w->base_ns)
        rc = write_requests(&j, p);
    write_slots(&j, p);
    write_diff(&j, w);
    if (rc == 0 && rp_profile_has_lines(p)) {
        rp_json_key(&j, "lines_view");
        rp_json_bool(&j, w->opts.lines);
        if (!w->opts.no_source && !w->base_ns)
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
    if (w->base_ns)
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

/* Per node of the page's tree, the base's total and self at the same path
 * (-1: none), from the matched node ids. */
static int weigh_matched_nodes(page_writer *w, const rp_calltree *base_tree, const uint32_t *matched)
{
    int64_t *base_self = rp_alloc_array(base_tree->node_count, sizeof(*base_self));
    if (!base_self)
        return -1;
    rp_calltree_self(base_tree, base_self);
    for (size_t n = 0; n < w->tree.node_count; n++) {
        bool found = matched[n] != RP_IDX_NONE;
        w->base_ns[n] = found ? base_tree->nodes[matched[n]].total : -1;
        w->base_self_ns[n] = found ? base_self[matched[n]] : -1;
    }
    free(base_self);
    return 0;
}

/* Per frame of the page, the base's self and total of the same method
 * (label and path; its lines summed): the Top table's change column. */
static int weigh_frames_by_method(page_writer *w, const rp_profile *base)
{
    const rp_profile *p = w->page.p;
    rp_flatcum fc;
    if (rp_flatcum_compute(base, &fc) != 0)
        return -1;
    rp_method_ids names;
    rp_method_ids_init(&names);
    size_t count = fc.flat_count + fc.cum_count;
    int64_t *self = rp_calloc_array(count + 1, sizeof(*self)), *total = rp_calloc_array(count + 1, sizeof(*total));
    int rc = self && total ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < count; i++) {
        const rp_frame_weight *fw = i < fc.flat_count ? &fc.flat[i] : &fc.cum[i - fc.flat_count];
        uint32_t key = rp_method_id(&names, base, fw->frame);
        if (key == RP_IDX_NONE)
            rc = -1;
        else if (i < fc.flat_count)
            self[key] += fw->weight;
        else
            total[key] += fw->weight;
    }
    for (size_t f = 0; rc == 0 && f < p->frame_count; f++) {
        uint32_t key = rp_method_id(&names, p, (uint32_t)f);
        bool known = key != RP_IDX_NONE && key < count;
        w->base_frame_self_ns[f] = known ? self[key] : 0;
        w->base_frame_total_ns[f] = known ? total[key] : 0;
    }
    free(self);
    free(total);
    rp_method_ids_free(&names);
    rp_flatcum_free(&fc);
    return rc;
}

/* Compares the page's tree with `base`'s full tree, path by path, and its
 * methods with the base's, name by name. */
static int match_base(page_writer *w, const rp_profile *base)
{
    rp_calltree base_tree;
    if (rp_calltree_build(base, 0, 0, &base_tree) != 0)
        return -1;
    w->base_total = base_tree.nodes[0].total;
    size_t nodes = w->tree.node_count, frames = w->page.p->frame_count;
    uint32_t *matched = rp_alloc_array(nodes, sizeof(*matched));
    w->base_ns = rp_alloc_array(nodes, sizeof(*w->base_ns));
    w->base_self_ns = rp_alloc_array(nodes, sizeof(*w->base_self_ns));
    w->base_frame_self_ns = rp_calloc_array(frames + 1, sizeof(*w->base_frame_self_ns));
    w->base_frame_total_ns = rp_calloc_array(frames + 1, sizeof(*w->base_frame_total_ns));
    int rc = -1;
    if (matched && w->base_ns && w->base_self_ns && w->base_frame_self_ns && w->base_frame_total_ns &&
        rp_calltree_match(&w->tree, w->page.p, &base_tree, base, matched) == 0 &&
        weigh_matched_nodes(w, &base_tree, matched) == 0)
        rc = weigh_frames_by_method(w, base);
    free(matched);
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
    free(w.base_ns);
    free(w.base_self_ns);
    free(w.base_frame_self_ns);
    free(w.base_frame_total_ns);
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
