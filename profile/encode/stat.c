/*
 * profile/encode/stat.c — the stat summary. See stat.h.
 *
 * Lines follow the gem's two column formats: "  %14s %-2s %5.1f%%  label"
 * for the time breakdown and "  %14s %-2s         label" for the rest.
 * With several processes, user/sys and the [Rperf] lines are summed over
 * all of them while the [Ruby ] and [OS   ] lines are the root process's,
 * and the output says so.
 */
#include "stat.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/numfmt.h"
#include "../schema.h"
#include "../vm_state.h"
#include "report.h"
#include "../timewin.h"
#include "../../common/vec.h"

static void pct_line(rp_out *out, const char *value, const char *unit, double pct, const char *label)
{
    rp_out_printf(out, "  %14s %-2s %5.1f%%  %s\n", value, unit, pct, label);
}

static void plain_line(rp_out *out, const char *value, const char *unit, const char *label)
{
    rp_out_printf(out, "  %14s %-2s         %s\n", value, unit, label);
}

/* The VM state of a label set: the %GVL or %GC label it carries. */
static rp_vm_state state_of(const rp_profile *p, uint32_t label_set)
{
    const rp_label_set *ls = &p->label_sets[label_set];
    for (uint32_t i = 0; i < ls->count; i++) {
        const rp_label *l = &p->labels[ls->first + i];
        rp_vm_state s = rp_vm_state_of_label(rp_profile_str(p, l->key), rp_profile_str(p, l->value));
        if (s != RP_VM_RUNNING)
            return s;
    }
    return RP_VM_RUNNING;
}

int64_t rp_stat_state_totals(const rp_profile *p, int64_t sums[RP_VM_STATE_COUNT])
{
    int64_t total = 0;
    memset(sums, 0, RP_VM_STATE_COUNT * sizeof(sums[0]));
    rp_vm_state *by_set = rp_calloc_array(p->label_set_count, sizeof(*by_set));
    for (size_t i = 0; by_set && i < p->label_set_count; i++)
        by_set[i] = state_of(p, (uint32_t)i);
    for (size_t i = 0; i < p->samples.count; i++) {
        const rp_sample *s = &p->samples.samples[i];
        rp_vm_state c = by_set ? by_set[s->label_set] : state_of(p, s->label_set);
        rp_add_saturating(&sums[c], s->weight);
        rp_add_saturating(&total, s->weight);
    }
    free(by_set);
    return total;
}

/* The time of the rows of Ractors other than the main one (schema.h). */
static int64_t ractors_total(const rp_profile *p)
{
    uint32_t path = rp_strtab_find(&p->strings, RP_RACTOR_PATH, strlen(RP_RACTOR_PATH));
    int64_t sum = 0;
    if (path == RP_IDX_NONE)
        return 0;
    for (size_t i = 0; i < p->samples.count; i++) {
        uint32_t depth;
        const uint32_t *frames = rp_stack_table_get(&p->stacks, p->samples.samples[i].stack, &depth);
        if (depth > 0 && p->frames[frames[0]].path == path)
            rp_add_saturating(&sum, p->samples.samples[i].weight);
    }
    return sum;
}

/* Wall mode: "CPU execution" is the time threads held the GVL, which a
 * thread holding it off the CPU (a page fault, the machine's other work)
 * also fills: when it exceeds the CPU time the kernel counted, say so
 * rather than leave two figures that seem to disagree. */
static void say_what_running_is(rp_out *out, const rp_profile *p, int64_t running_ns)
{
    const rp_meta *m = &p->meta;
    if (m->mode != RP_MODE_WALL || running_ns <= m->user_ns + m->sys_ns)
        return;
    char held[RP_NUMFMT_MAX], cpu[RP_NUMFMT_MAX];
    rp_out_printf(out,
                  "  (wall mode: CPU execution is the time a thread held the GVL, %s ms, more than the %s ms of "
                  "user + sys: a thread holding it is not always on a CPU)\n",
                  rp_fmt_ms(running_ns, held), rp_fmt_ms(m->user_ns + m->sys_ns, cpu));
}

static void write_breakdown(rp_out *out, const rp_profile *p)
{
    int64_t sums[RP_VM_STATE_COUNT];
    int64_t total = rp_stat_state_totals(p, sums), ractors = ractors_total(p);
    char buf[RP_NUMFMT_MAX], title[80];
    rp_out_write(out, "\n", 1);
    if (p->meta.process_count > 1)
        plain_line(out, rp_fmt_int(p->meta.process_count, buf), "", "[Rperf] Ruby processes profiled");
    for (int c = 0; c < RP_VM_STATE_COUNT; c++) {
        if (sums[c] <= 0)
            continue;
        snprintf(title, sizeof(title), "[Rperf] %s", rp_vm_state_titles[c]);
        pct_line(out, rp_fmt_ms(sums[c], buf), "ms",
                 total > 0 ? (double)sums[c] * 100.0 / (double)total : 0.0, title);
        if (c == RP_VM_RUNNING && ractors > 0)
            pct_line(out, rp_fmt_ms(ractors, buf), "ms", total > 0 ? (double)ractors * 100.0 / (double)total : 0.0,
                     "[Rperf]   of it in Ractors other than the main one");
    }
    say_what_running_is(out, p, sums[RP_VM_RUNNING]);
}

static double mb(int64_t bytes)
{
    return (double)bytes / 1024.0 / 1024.0;
}

/* Rows of a label's values, heaviest first (the classes of a memory
 * measure). */
typedef struct value_weight {
    uint32_t value; /* string id, RP_IDX_NONE: without the label */
    int64_t weight;
} value_weight;

static int heavier(const void *a, const void *b)
{
    const value_weight *x = a, *y = b;
    return x->weight != y->weight ? (x->weight > y->weight ? -1 : 1) : (x->value > y->value) - (x->value < y->value);
}

/* The weight of each value of label `key` in the samples (value ids index
 * `sums`, the last slot for samples without it). */
static value_weight *sum_by_label(const rp_profile *p, uint32_t key, size_t *count, int64_t *total)
{
    size_t n = p->strings.count + 1;
    value_weight *rows = rp_calloc_array(n, sizeof(*rows));
    *total = 0;
    if (!rows)
        return NULL;
    for (size_t i = 0; i < n; i++)
        rows[i].value = i + 1 < n ? (uint32_t)i : RP_IDX_NONE;
    for (size_t i = 0; i < p->samples.count; i++) {
        const rp_sample *s = &p->samples.samples[i];
        uint32_t v = key == RP_IDX_NONE ? RP_IDX_NONE : rp_profile_label_value(p, s->label_set, key);
        rp_add_saturating(&rows[v == RP_IDX_NONE ? n - 1 : v].weight, s->weight);
        rp_add_saturating(total, s->weight);
    }
    qsort(rows, n, sizeof(*rows), heavier);
    *count = n;
    return rows;
}

#define STAT_CLASSES 10

/* A memory measure's breakdown: its total, and its heaviest classes. */
static int write_class_breakdown(rp_out *out, const rp_profile *p)
{
    size_t n = 0;
    int64_t total;
    uint32_t key = rp_strtab_find(&p->strings, RP_LABEL_CLASS, strlen(RP_LABEL_CLASS));
    value_weight *rows = sum_by_label(p, key, &n, &total);
    if (!rows)
        return -1;
    char buf[RP_MEASURE_TEXT_MAX], title[RP_FRAME_NAME_MAX];
    rp_measure m = p->measure;
    rp_out_write(out, "\n", 1);
    snprintf(title, sizeof(title), "[Rperf] %s (1 in %lld allocations sampled)", rp_measures[m].what,
             (long long)p->meta.alloc_rate);
    pct_line(out, rp_measure_format(m, total, buf), rp_measure_short_unit(m), 100.0, title);
    for (size_t i = 0; i < n && i < STAT_CLASSES && rows[i].weight > 0; i++) {
        snprintf(title, sizeof(title), "[Rperf]   %s", rows[i].value == RP_IDX_NONE ? "(no class)"
                                                                                   : rp_profile_str(p, rows[i].value));
        pct_line(out, rp_measure_format(m, rows[i].weight, buf), rp_measure_short_unit(m),
                 total > 0 ? (double)rows[i].weight * 100.0 / (double)total : 0.0, title);
    }
    free(rows);
    return 0;
}

/* With allocation sampling, under a time measure: what it estimated. */
static void write_memory_lines(rp_out *out, const rp_profile *p)
{
    if (!rp_profile_has_memory(p) || p->measure != RP_MEASURE_TIME)
        return;
    char a[RP_NUMFMT_MAX], label[160];
    snprintf(label, sizeof(label), "[Rperf] allocated objects (1 in %lld sampled; --measure alloc)",
             (long long)p->meta.alloc_rate);
    plain_line(out, rp_fmt_int(rp_sample_table_total(rp_profile_table_const(p, RP_MEASURE_ALLOC_OBJECTS)), a), "",
               label);
    plain_line(out, rp_fmt_int(rp_sample_table_total(rp_profile_table_const(p, RP_MEASURE_RETAINED_OBJECTS)), a), "",
               "[Rperf] retained objects when written (--measure retained)");
    plain_line(out, rp_fmt_round(mb(rp_sample_table_total(rp_profile_table_const(p, RP_MEASURE_RETAINED_BYTES))), a),
               "MB", "[Rperf] retained memory when written (--measure retained-bytes)");
}

static void write_unfollowed(rp_out *out, const rp_meta *m)
{
    if (m->alloc_unfollowed > 0)
        rp_out_printf(out,
                      "  NOTE: %" PRId64 " sampled objects were not followed (RPERF_ALLOC_FOLLOW reached, or GCs run by another Ractor): "
                      "retained objects are undercounted\n",
                      m->alloc_unfollowed);
}

static void write_ruby_lines(rp_out *out, const rp_meta *m)
{
    char a[RP_NUMFMT_MAX], b[RP_NUMFMT_MAX], c[RP_NUMFMT_MAX], d[RP_NUMFMT_MAX], label[160];
    if (m->has_gc) {
        snprintf(label, sizeof(label), "[Ruby ] GC time (%s count: %s minor, %s major)",
                 rp_fmt_int(m->gc.count, b), rp_fmt_int(m->gc.minor_count, c),
                 rp_fmt_int(m->gc.major_count, d));
        plain_line(out, rp_fmt_ms(m->gc.time_ns, a), "ms", label);
        plain_line(out, rp_fmt_int(m->gc.allocated_objects, a), "", "[Ruby ] allocated objects");
        plain_line(out, rp_fmt_int(m->gc.freed_objects, a), "", "[Ruby ] freed objects");
    }
    if (m->detected_thread_count > 0)
        plain_line(out, rp_fmt_int(m->detected_thread_count, a), "", "[Ruby ] detected threads");
    if (m->has_yjit) {
        snprintf(a, sizeof(a), "%.1f%%", m->yjit_ratio * 100.0);
        plain_line(out, a, "", "[Ruby ] YJIT code execution ratio");
    }
}

static void write_os_lines(rp_out *out, const rp_meta *m)
{
    char a[RP_NUMFMT_MAX], b[RP_NUMFMT_MAX], c[RP_NUMFMT_MAX], label[160];
    if (!m->has_os)
        return;
    const rp_os_stats *os = &m->os;
    plain_line(out, rp_fmt_round((double)os->maxrss_kb / 1024.0, a), "MB", "[OS   ] peak memory (maxrss)");
    snprintf(label, sizeof(label), "[OS   ] page faults (%s minor, %s major)",
             rp_fmt_int(os->page_faults_minor, b), rp_fmt_int(os->page_faults_major, c));
    plain_line(out, rp_fmt_int(os->page_faults_minor + os->page_faults_major, a), "", label);
    snprintf(label, sizeof(label), "[OS   ] context switches (%s voluntary, %s involuntary)",
             rp_fmt_int(os->ctx_voluntary, b), rp_fmt_int(os->ctx_involuntary, c));
    plain_line(out, rp_fmt_int(os->ctx_voluntary + os->ctx_involuntary, a), "", label);
    snprintf(label, sizeof(label), "[OS   ] disk I/O (%s MB read, %s MB write)",
             rp_fmt_round(mb(os->io_read_bytes), b), rp_fmt_round(mb(os->io_write_bytes), c));
    plain_line(out, rp_fmt_round(mb(os->io_read_bytes + os->io_write_bytes), a), "MB", label);
}

/* With the worker's CPU known, the overhead counts it too: on a machine
 * where waking a thread is dear it is most of the cost (and it is in the
 * user and sys times). */
rp_overhead rp_stat_overhead(const rp_meta *m)
{
    rp_overhead o = {0};
    int64_t real = m->total_duration_ns > 0 ? m->total_duration_ns : m->duration_ns;
    if (real <= 0)
        return o;
    o.sampling_pct = (double)m->sampling_time_ns * 100.0 / (double)real;
    o.worker_pct = (double)m->worker_cpu_ns * 100.0 / (double)real;
    o.total_pct = o.sampling_pct + o.worker_pct;
    if (m->worker_cpu_ns > 0)
        snprintf(o.parts, sizeof(o.parts), " (sampling %.1f%%, the agent's threads %.1f%% CPU)",
                 o.sampling_pct, o.worker_pct);
    return o;
}

static void write_footer(rp_out *out, const rp_meta *m)
{
    rp_overhead o = rp_stat_overhead(m);
    rp_out_printf(out, "\n  %" PRId64 " samples / %" PRId64 " triggers, %.1f%% profiler overhead%s\n",
                  m->sampling_count, m->trigger_count, o.total_pct, o.parts);
    if (m->dropped_samples > 0)
        rp_out_printf(out, "  WARNING: %" PRId64 " samples dropped (sample buffers full or out of memory)\n",
                      m->dropped_samples);
    if (m->truncated_samples > 0)
        rp_out_printf(out,
                      "  NOTE: %" PRId64 " samples had stacks deeper than %d frames (leaf side kept)\n",
                      m->truncated_samples, RP_STACK_MAX);
    if (m->parts_at_full_stacks > 0 || m->parts_at_interval > 0)
        rp_out_printf(out,
                      "  NOTE: written in parts: %" PRId64 " ended as the stack table filled (RPERF_MAX_STACKS), %" PRId64
                      " as RPERF_INTERVAL ended, and each process's last with it\n",
                      m->parts_at_full_stacks, m->parts_at_interval);
}

/* The root's command line as one string, words separated by spaces. */
static void write_command(rp_out *out, const rp_profile *p)
{
    if (p->meta.command_len == 0) {
        rp_out_puts(out, "(unknown)");
        return;
    }
    for (size_t i = 0; i < p->meta.command_len; i++) {
        if (i)
            rp_out_write(out, " ", 1);
        rp_out_puts(out, rp_profile_str(p, p->meta.command[i]));
    }
}

int rp_stat_write(const rp_profile *p, rp_out *out, bool with_report, int top)
{
    const rp_meta *m = &p->meta;
    char buf[RP_NUMFMT_MAX];
    rp_out_puts(out, "\n Performance stats for '");
    write_command(out, p);
    rp_out_puts(out, "':\n\n");
    if (p->load.windowed) {
        char window[RP_WINDOW_TEXT_MAX];
        rp_out_printf(out, "  window: %s\n\n", rp_time_window_text(&p->load, window, sizeof(window)));
    }
    rp_out_printf(out, "  %14s ms   user\n", rp_fmt_ms(m->user_ns, buf));
    rp_out_printf(out, "  %14s ms   sys\n", rp_fmt_ms(m->sys_ns, buf));
    rp_out_printf(out, "  %14s ms   real\n", rp_fmt_ms(m->duration_ns, buf));
    if (p->samples.count > 0) {
        if (p->measure == RP_MEASURE_TIME)
            write_breakdown(out, p);
        else if (write_class_breakdown(out, p) != 0)
            return -1;
        write_ruby_lines(out, m);
        write_memory_lines(out, p);
        write_os_lines(out, m);
        if (m->process_count > 1)
            plain_line(out, "", "",
                       "(user/sys and [Rperf] lines are summed over all processes; "
                       "[Ruby ] and [OS   ] lines are the root process's)");
        if (with_report) {
            rp_out_write(out, "\n", 1);
            if (rp_report_write(p, out, top, false) != 0)
                return -1;
        }
        write_footer(out, m);
        write_unfollowed(out, m);
    }
    rp_out_write(out, "\n", 1);
    return 0;
}
