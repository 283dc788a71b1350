/*
 * profile/encode/html_sections.c — the page's HTML sections. See html_sections.h.
 */
#include "html_sections.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../common/numfmt.h"
#include "../schema.h"
#include "../../common/vec.h"
#include "../vm_state.h"
#include "stat.h"

void rp_html_text(rp_out *out, const char *s)
{
    const char *run = s;
    for (; *s; s++) {
        const char *esc;
        switch (*s) {
        case '&': esc = "&amp;"; break;
        case '<': esc = "&lt;"; break;
        case '>': esc = "&gt;"; break;
        case '"': esc = "&quot;"; break;
        case '\'': esc = "&#39;"; break;
        default: continue;
        }
        rp_out_write(out, run, (size_t)(s - run));
        rp_out_puts(out, esc);
        run = s + 1;
    }
    rp_out_write(out, run, (size_t)(s - run));
}

static double share(int64_t part, int64_t whole)
{
    return whole > 0 ? (double)part * 100.0 / (double)whole : 0.0;
}

/* --- summary ------------------------------------------------------------ */

typedef struct thread_id {
    uint32_t process; /* rp_profile_process_of */
    uint32_t seq;
} thread_id;

static int compare_threads(const void *a, const void *b)
{
    const thread_id *x = a, *y = b;
    if (x->process != y->process)
        return x->process < y->process ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Threads are numbered per process, so a thread is (process, seq). */
static int64_t count_threads(const rp_profile *p)
{
    thread_id *ids = rp_alloc_array(p->samples.count, sizeof(*ids));
    if (!ids)
        return -1;
    for (size_t i = 0; i < p->samples.count; i++) {
        const rp_sample *s = &p->samples.samples[i];
        ids[i] = (thread_id){rp_profile_process_of(p, s->label_set), s->thread_seq};
    }
    qsort(ids, p->samples.count, sizeof(*ids), compare_threads);
    int64_t n = 0;
    for (size_t i = 0; i < p->samples.count; i++)
        if (i == 0 || compare_threads(&ids[i - 1], &ids[i]) != 0)
            n++;
    free(ids);
    return n;
}

static void fact(rp_out *out, const char *name, const char *value)
{
    rp_out_puts(out, "<div><dt>");
    rp_html_text(out, name);
    rp_out_puts(out, "</dt><dd>");
    rp_html_text(out, value);
    rp_out_puts(out, "</dd></div>\n");
}

void rp_html_command(rp_out *out, const rp_profile *p)
{
    if (p->meta.command_len == 0)
        rp_out_puts(out, "(unknown command)");
    for (size_t i = 0; i < p->meta.command_len; i++) {
        if (i)
            rp_out_write(out, " ", 1);
        rp_html_text(out, rp_profile_str(p, p->meta.command[i]));
    }
}

static void write_facts(rp_out *out, const rp_profile *p, int64_t threads, int64_t total)
{
    const rp_meta *m = &p->meta;
    char a[RP_NUMFMT_MAX], b[RP_NUMFMT_MAX], text[2 * RP_NUMFMT_MAX + 16];
    rp_out_puts(out, "<dl class=\"facts\">\n");
    fact(out, "Mode", rp_mode_name(m->mode));
    snprintf(text, sizeof(text), "%s ms", rp_fmt_ms(m->duration_ns, a));
    fact(out, "Duration", text);
    if (p->measure == RP_MEASURE_TIME) {
        snprintf(text, sizeof(text), "%s ms", rp_fmt_ms(total, a));
        fact(out, m->mode == RP_MODE_WALL ? "Profiled wall time" : "Profiled CPU time", text);
    } else {
        snprintf(text, sizeof(text), "%s %s", rp_fmt_int(total, a), rp_measures[p->measure].unit);
        fact(out, rp_measures[p->measure].what, text);
    }
    if (rp_profile_has_memory(p)) {
        snprintf(text, sizeof(text), "1 in %s", rp_fmt_int(m->alloc_rate, a));
        fact(out, "Allocations sampled", text);
    }
    fact(out, "Processes", rp_fmt_int(m->process_count > 0 ? m->process_count : 1, a));
    fact(out, "Threads", rp_fmt_int(threads, a));
    snprintf(text, sizeof(text), "%s / %s", rp_fmt_int(m->sampling_count, a), rp_fmt_int(m->trigger_count, b));
    fact(out, "Samples / triggers", text);
    snprintf(text, sizeof(text), "%s Hz", rp_fmt_int(m->frequency, a));
    fact(out, "Frequency", text);
    if (m->start_time_ns > 0) {
        time_t start = (time_t)(m->start_time_ns / 1000000000);
        struct tm tm;
        if (gmtime_r(&start, &tm) && strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S UTC", &tm))
            fact(out, "Started", text);
    }
    if (m->ruby_version != RP_IDX_NONE)
        fact(out, "Ruby", rp_profile_str(p, m->ruby_version));
    rp_out_puts(out, "</dl>\n");
}

static void write_breakdown(rp_out *out, const rp_profile *p)
{
    int64_t sums[RP_VM_STATE_COUNT];
    int64_t total = rp_stat_state_totals(p, sums);
    char ms[RP_NUMFMT_MAX];
    rp_out_puts(out, "<div class=\"breakdown\">\n<div class=\"bar\" aria-hidden=\"true\">");
    for (int s = 0; s < RP_VM_STATE_COUNT; s++)
        if (sums[s] > 0)
            rp_out_printf(out, "<span class=\"st-%d\" style=\"width:%.3f%%\"></span>", s, share(sums[s], total));
    rp_out_puts(out, "</div>\n<table class=\"states\"><tbody>\n");
    for (int s = 0; s < RP_VM_STATE_COUNT; s++) {
        if (sums[s] <= 0)
            continue;
        rp_out_printf(out, "<tr><td><span class=\"sw st-%d\"></span>%s</td><td class=\"num\">%s ms</td>"
                           "<td class=\"num\">%.1f%%</td></tr>\n",
                      s, rp_vm_state_titles[s], rp_fmt_ms(sums[s], ms), share(sums[s], total));
    }
    rp_out_puts(out, "</tbody></table>\n</div>\n");
}

int rp_html_summary(rp_out *out, const rp_html_page *pg)
{
    int64_t threads = count_threads(pg->p);
    if (threads < 0)
        return -1;
    rp_out_puts(out, "<h1>rperf <code class=\"command\">");
    rp_html_command(out, pg->p);
    rp_out_puts(out, "</code></h1>\n");
    write_facts(out, pg->p, threads, pg->fc.total);
    if (pg->p->measure == RP_MEASURE_TIME)
        write_breakdown(out, pg->p);
    return 0;
}

/* --- top methods ---------------------------------------------------------- */

int rp_html_top_caption(rp_out *out, const rp_html_page *pg)
{
    char a[RP_NUMFMT_MAX];
    size_t shown = pg->fc.cum_count < (size_t)pg->top_rows ? pg->fc.cum_count : (size_t)pg->top_rows;
    rp_out_printf(out, "Top %zu of %s methods by self time", shown, rp_fmt_int((int64_t)pg->fc.cum_count, a));
    return 0;
}

typedef struct top_row {
    uint32_t frame;
    int64_t self, total;
} top_row;

static int compare_top_rows(const void *a, const void *b)
{
    const top_row *x = a, *y = b;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static void write_top_row(rp_out *out, const rp_profile *p, const top_row *r, int64_t total)
{
    char self[RP_MEASURE_TEXT_MAX], cum[RP_MEASURE_TEXT_MAX];
    const rp_frame *f = &p->frames[r->frame];
    rp_out_printf(out, "<tr data-frame=\"%" PRIu32 "\"><td class=\"num\">%s</td><td class=\"num\">%.1f%%</td>"
                       "<td class=\"num\">%s</td><td class=\"num\">%.1f%%</td><td class=\"name\">",
                  r->frame, rp_measure_format(p->measure, r->self, self), share(r->self, total),
                  rp_measure_format(p->measure, r->total, cum),
                  share(r->total, total));
    rp_html_text(out, rp_profile_str(p, f->label));
    rp_out_puts(out, "</td><td class=\"path\">");
    rp_html_text(out, rp_profile_str(p, f->path));
    rp_out_puts(out, "</td></tr>\n");
}

int rp_html_top_rows(rp_out *out, const rp_html_page *pg)
{
    /* Every frame with weight is in the cumulative list. */
    size_t count = pg->fc.cum_count;
    top_row *rows = rp_alloc_array(count, sizeof(*rows));
    if (!rows)
        return -1;
    for (size_t i = 0; i < count; i++) {
        uint32_t frame = pg->fc.cum[i].frame;
        rows[i] = (top_row){frame, pg->self_ns[frame], pg->fc.cum[i].weight};
    }
    qsort(rows, count, sizeof(*rows), compare_top_rows);
    for (size_t i = 0; i < count && i < (size_t)pg->top_rows; i++)
        write_top_row(out, pg->p, &rows[i], pg->fc.total);
    free(rows);
    return 0;
}

/* --- tags ------------------------------------------------------------------ */

/* One value of one label key and the weight of samples carrying it;
 * value RP_IDX_NONE: samples without the key (for %pid: the root process). */
typedef struct tag_value {
    uint32_t key, value;
    int64_t weight;
} tag_value;

typedef struct tag_values {
    tag_value *items;
    size_t count, cap;
} tag_values;

static int add_tag(tag_values *t, uint32_t key, uint32_t value, int64_t weight)
{
    for (size_t i = 0; i < t->count; i++)
        if (t->items[i].key == key && t->items[i].value == value) {
            rp_add_saturating(&t->items[i].weight, weight);
            return 0;
        }
    if (RP_VEC_RESERVE(t->items, t->cap, t->count + 1) != 0)
        return -1;
    t->items[t->count++] = (tag_value){key, value, weight};
    return 0;
}

/* Every (key, value) of the label sets with their weights; keys are those
 * of the label sets (a label set holds few, and a profile few sets). */
static int collect_tags(const rp_profile *p, tag_values *t)
{
    int64_t *set_weight = rp_calloc_array(p->label_set_count, sizeof(*set_weight));
    uint32_t *keys = NULL;
    size_t key_count = 0, keys_cap = 0;
    int rc = set_weight ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < p->samples.count; i++)
        rp_add_saturating(&set_weight[p->samples.samples[i].label_set], p->samples.samples[i].weight);
    for (size_t s = 0; rc == 0 && s < p->label_set_count; s++)
        for (uint32_t i = 0; rc == 0 && i < p->label_sets[s].count; i++) {
            uint32_t key = p->labels[p->label_sets[s].first + i].key;
            if (strcmp(rp_profile_str(p, key), RP_SLOT_LABEL) == 0)
                continue; /* the loader's, for the time strip: no label of the program */
            size_t k = 0;
            while (k < key_count && keys[k] != key)
                k++;
            if (k == key_count && (rc = RP_VEC_RESERVE(keys, keys_cap, key_count + 1)) == 0)
                keys[key_count++] = key;
        }
    for (size_t k = 0; rc == 0 && k < key_count; k++)
        for (size_t s = 0; rc == 0 && s < p->label_set_count; s++)
            if (set_weight[s] > 0)
                rc = add_tag(t, keys[k], rp_profile_label_value(p, (uint32_t)s, keys[k]), set_weight[s]);
    free(keys);
    free(set_weight);
    return rc;
}

static int compare_tags(const void *a, const void *b, void *profile)
{
    const rp_profile *p = profile;
    const tag_value *x = a, *y = b;
    if (x->key != y->key)
        return strcmp(rp_profile_str(p, x->key), rp_profile_str(p, y->key));
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    return x->value < y->value ? -1 : x->value > y->value;
}

static void write_tag_row(rp_out *out, rp_measure m, const char *value, bool unset, int64_t weight, int64_t total)
{
    char ms[RP_MEASURE_TEXT_MAX];
    rp_out_puts(out, "<tr data-value=\"");
    rp_html_text(out, value);
    rp_out_printf(out, "\"%s><td>", unset ? " data-unset=\"\"" : "");
    if (unset)
        rp_out_puts(out, "<em>");
    rp_html_text(out, value);
    if (unset)
        rp_out_puts(out, "</em>");
    rp_out_printf(out, "</td><td class=\"num\">%s</td><td class=\"num\">%.1f%%</td>"
                       "<td class=\"barcell\"><span class=\"hbar\" style=\"width:%.3f%%\"></span></td></tr>\n",
                  rp_measure_format(m, weight, ms), share(weight, total), share(weight, total));
}

static void begin_tag_table(rp_out *out, const char *key)
{
    rp_out_puts(out, "<table class=\"tag\" data-key=\"");
    rp_html_text(out, key);
    rp_out_puts(out, "\"><caption>");
    rp_html_text(out, key);
    rp_out_puts(out, "</caption><thead><tr><th scope=\"col\">Value</th><th scope=\"col\" class=\"num\">ms</th>"
                     "<th scope=\"col\" class=\"num\">share</th><th scope=\"col\"></th></tr></thead><tbody>\n");
}

static void write_label_tags(rp_out *out, const rp_profile *p, const tag_values *t, int64_t total)
{
    char root[RP_NUMFMT_MAX];
    snprintf(root, sizeof(root), "%" PRId64, p->meta.pid);
    for (size_t i = 0; i < t->count; i++) {
        const tag_value *v = &t->items[i];
        const char *key = rp_profile_str(p, v->key);
        if (i == 0 || t->items[i - 1].key != v->key)
            begin_tag_table(out, key);
        bool is_pid = strcmp(key, RP_LABEL_PID) == 0;
        if (v->value != RP_IDX_NONE)
            write_tag_row(out, p->measure, rp_profile_str(p, v->value), false, v->weight, total);
        else
            write_tag_row(out, p->measure, is_pid ? root : "(not set)", !is_pid, v->weight, total);
        if (i + 1 == t->count || t->items[i + 1].key != v->key)
            rp_out_puts(out, "</tbody></table>\n");
    }
}

static int compare_seq_weight(const void *a, const void *b)
{
    const rp_sample *x = a, *y = b;
    return x->thread_seq < y->thread_seq ? -1 : x->thread_seq > y->thread_seq;
}

/* thread_seq is no label, but pprof shows it as one, and so does the page. */
static int write_thread_tags(rp_out *out, const rp_profile *p, int64_t total)
{
    rp_sample *by_seq = rp_alloc_array(p->samples.count, sizeof(*by_seq));
    if (!by_seq)
        return -1;
    if (p->samples.count)
        memcpy(by_seq, p->samples.samples, p->samples.count * sizeof(*by_seq));
    qsort(by_seq, p->samples.count, sizeof(*by_seq), compare_seq_weight);
    begin_tag_table(out, RP_LABEL_THREAD_SEQ);
    for (size_t i = 0; i < p->samples.count;) {
        int64_t weight = 0;
        size_t j = i;
        for (; j < p->samples.count && by_seq[j].thread_seq == by_seq[i].thread_seq; j++)
            rp_add_saturating(&weight, by_seq[j].weight);
        char seq[RP_NUMFMT_MAX];
        snprintf(seq, sizeof(seq), "%" PRIu32, by_seq[i].thread_seq);
        write_tag_row(out, p->measure, seq, false, weight, total);
        i = j;
    }
    rp_out_puts(out, "</tbody></table>\n");
    free(by_seq);
    return 0;
}

int rp_html_tags(rp_out *out, const rp_html_page *pg)
{
    tag_values t = {0};
    if (collect_tags(pg->p, &t) != 0) {
        free(t.items);
        return -1;
    }
    if (t.count)
        qsort_r(t.items, t.count, sizeof(*t.items), compare_tags, (void *)pg->p);
    write_label_tags(out, pg->p, &t, pg->fc.total);
    free(t.items);
    return write_thread_tags(out, pg->p, pg->fc.total);
}
