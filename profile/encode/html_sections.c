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
    char a[RP_NUMFMT_MAX], b[RP_NUMFMT_MAX], text[2 * RP_NUMFMT_MAX + 96];
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
    rp_overhead o = rp_stat_overhead(m);
    snprintf(text, sizeof(text), "%.1f%%%s", o.total_pct, o.parts);
    fact(out, "Profiler overhead", text);
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
