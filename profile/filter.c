/*
 * profile/filter.c — label filters. See filter.h.
 */
#include "filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/hash.h"
#include "../common/idxset.h"
#include "../common/vec.h"
#include "diag.h"
#include "schema.h"
#include "vm_state.h"

int rp_tag_filters_add(rp_tag_filters *f, const char *arg, bool ignore, char *why, size_t size)
{
    if (f->count == RP_TAG_FILTERS_MAX) {
        snprintf(why, size, "at most %d label filters", RP_TAG_FILTERS_MAX);
        return -1;
    }
    rp_tag_filter *t = &f->items[f->count];
    const char *eq = strchr(arg, '=');
    bool keyed = eq && eq > arg;
    t->key = keyed ? strndup(arg, (size_t)(eq - arg)) : NULL;
    t->ignore = ignore;
    if (keyed && !t->key) {
        snprintf(why, size, "out of memory");
        return -1;
    }
    int rc = regcomp(&t->re, keyed ? eq + 1 : arg, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char re_why[128];
        regerror(rc, &t->re, re_why, sizeof(re_why));
        snprintf(why, size, "%s", re_why);
        free(t->key);
        return -1;
    }
    f->count++;
    return 0;
}

void rp_tag_filters_free(rp_tag_filters *f)
{
    for (int i = 0; i < f->count; i++) {
        free(f->items[i].key);
        regfree(&f->items[i].re);
    }
    f->count = 0;
}

static bool value_matches(const rp_tag_filter *f, const char *value)
{
    return value && regexec(&f->re, value, 0, NULL, 0) == 0;
}

/* A filter with its key looked up in the profile once. */
typedef struct compiled {
    const rp_tag_filter *f;
    rp_label_key key;
} compiled;

/* Whether one filter matches a sample of label set `set` and thread `seq`:
 * its key's value does, or, without a key, any label's value does. */
static bool filter_matches(const rp_profile *p, const compiled *c, uint32_t set, uint32_t seq)
{
    char buf[RP_LABEL_VALUE_BUF];
    if (c->f->key)
        return value_matches(c->f, rp_sample_label(p, c->key, set, seq, buf));
    const rp_label_set *ls = &p->label_sets[set];
    for (uint32_t i = 0; i < ls->count; i++)
        if (value_matches(c->f, rp_profile_str(p, p->labels[ls->first + i].value)))
            return true;
    return false;
}

/* Kept: every --tagfocus matches and no --tagignore does. */
static bool sample_kept(const rp_profile *p, const compiled *cs, int n, uint32_t set, uint32_t seq)
{
    for (int i = 0; i < n; i++)
        if (filter_matches(p, &cs[i], set, seq) == cs[i].f->ignore)
            return false;
    return true;
}

/* Whether each label set is kept, decided once per set rather than once
 * per sample (regexec is the cost), when no filter looks at the thread;
 * NULL otherwise, or when out of memory (then decided per sample). */
static bool *kept_sets(const rp_profile *p, const compiled *cs, int n)
{
    for (int i = 0; i < n; i++)
        if (cs[i].f->key && cs[i].key.thread_seq)
            return NULL;
    bool *kept = rp_alloc_array(p->label_set_count, sizeof(*kept));
    for (size_t i = 0; kept && i < p->label_set_count; i++)
        kept[i] = sample_kept(p, cs, n, (uint32_t)i, 0);
    return kept;
}

/* Keeps the samples of `table` that the filters keep. */
static int filter_table(rp_profile *p, rp_sample_table *table, const compiled *cs, int n, const bool *by_set)
{
    rp_sample_table kept;
    rp_sample_table_init(&kept, table->aggregate);
    for (size_t i = 0; i < table->count; i++) {
        const rp_sample *s = &table->samples[i];
        bool keep = by_set ? by_set[s->label_set] : sample_kept(p, cs, n, s->label_set, s->thread_seq);
        if (keep && rp_sample_table_add_at(&kept, s->stack, s->thread_seq, s->label_set, s->weight,
                                           rp_sample_time(table, i)) != RP_SAMPLE_OK) {
            rp_sample_table_free(&kept);
            rp_error("out of memory");
            return -1;
        }
    }
    rp_sample_table_free(table);
    *table = kept;
    return 0;
}

int rp_filter_apply(rp_profile *p, const rp_tag_filters *f)
{
    if (f->count == 0)
        return 0;
    compiled cs[RP_TAG_FILTERS_MAX];
    for (int i = 0; i < f->count; i++)
        cs[i] = (compiled){&f->items[i], rp_label_key_of(p, f->items[i].key ? f->items[i].key : "")};
    bool *by_set = kept_sets(p, cs, f->count);
    int rc = 0;
    for (int k = 0; k < RP_MEASURES && rc == 0; k++)
        rc = filter_table(p, rp_profile_table(p, (rp_measure)k), cs, f->count, by_set);
    free(by_set);
    return rc;
}

/* --- idle threads --------------------------------------------------------- */

typedef struct thread_time {
    uint32_t pid, seq; /* pid: rp_profile_process_of's */
    int64_t total, blocked;
} thread_time;

typedef struct thread_times {
    thread_time *items;
    size_t count, cap;
    rp_idxset index;
} thread_times;

typedef struct thread_key_ctx {
    const thread_times *t;
    uint32_t pid, seq;
} thread_key_ctx;

static bool same_thread(const void *ctx, uint32_t i)
{
    const thread_key_ctx *k = ctx;
    return k->t->items[i].pid == k->pid && k->t->items[i].seq == k->seq;
}

static uint64_t thread_hash(uint32_t pid, uint32_t seq)
{
    return rp_hash_combine(rp_hash_mix64(pid), seq);
}

/* The entry of thread (pid, seq), added when new; NULL when out of memory. */
static thread_time *thread_of(thread_times *t, uint32_t pid, uint32_t seq)
{
    thread_key_ctx k = {t, pid, seq};
    uint32_t i = rp_idxset_find(&t->index, thread_hash(pid, seq), same_thread, &k);
    if (i != RP_IDX_NONE)
        return &t->items[i];
    if (RP_VEC_RESERVE(t->items, t->cap, t->count + 1) != 0 ||
        rp_idxset_insert(&t->index, thread_hash(pid, seq), (uint32_t)t->count) != 0)
        return NULL;
    t->items[t->count] = (thread_time){pid, seq, 0, 0};
    return &t->items[t->count++];
}

/* Each label set's process and whether it is %GVL=blocked. */
static int describe_sets(const rp_profile *p, uint32_t **pid_of, bool **blocked)
{
    *pid_of = rp_alloc_array(p->label_set_count + 1, sizeof(**pid_of));
    *blocked = rp_alloc_array(p->label_set_count + 1, sizeof(**blocked));
    if (!*pid_of || !*blocked)
        return -1;
    rp_label_key gvl = rp_label_key_of(p, rp_vm_state_labels[RP_VM_GVL_BLOCKED].key);
    const char *blocked_value = rp_vm_state_labels[RP_VM_GVL_BLOCKED].value;
    for (size_t i = 0; i < p->label_set_count; i++) {
        (*pid_of)[i] = rp_profile_process_of(p, (uint32_t)i);
        uint32_t v = gvl.id == RP_IDX_NONE ? RP_IDX_NONE : rp_profile_label_value(p, (uint32_t)i, gvl.id);
        (*blocked)[i] = v != RP_IDX_NONE && strcmp(rp_profile_str(p, v), blocked_value) == 0;
    }
    return 0;
}

const char *const rp_idle_wait_methods[] = {
    "Thread::Mutex#sleep", "Thread::ConditionVariable#wait", "Thread::Queue#pop", "Thread::SizedQueue#pop",
    "IO.select", "Kernel#select", "IO#wait_readable", "IO#wait", "NIO::Selector#select", "Kernel#sleep",
    NULL,
};

bool rp_is_idle_wait(const char *label)
{
    for (const char *const *m = rp_idle_wait_methods; *m; m++)
        if (strcmp(label, *m) == 0)
            return true;
    return false;
}

static bool thread_idle(const thread_times *t, uint32_t pid, uint32_t seq)
{
    thread_key_ctx k = {t, pid, seq};
    uint32_t at = rp_idxset_find(&t->index, thread_hash(pid, seq), same_thread, &k);
    return at != RP_IDX_NONE && t->items[at].total > 0 &&
           (double)t->items[at].blocked >= RP_IDLE_BLOCKED_SHARE * (double)t->items[at].total;
}

/* What tells a sample waiting for work: the label sets outside any
 * request and the frames of the waiting methods (NULL: no request was
 * recorded, so no sample is told apart so). */
typedef struct waiting {
    bool *outside; /* per label set: no request's (rp_label_set_in_request) */
    bool *waits;   /* per frame */
} waiting;

static bool sample_waits(const rp_profile *p, const waiting *w, const rp_sample *s)
{
    if (!w->outside || !w->outside[s->label_set])
        return false;
    uint32_t depth;
    const uint32_t *frames = rp_stack_table_get(&p->stacks, s->stack, &depth);
    return depth > 0 && w->waits[frames[0]];
}

/* Keeps the samples of `table` whose thread is not idle and that do not
 * wait for work outside requests. */
static int drop_idle(const rp_profile *p, rp_sample_table *table, thread_times *t, const uint32_t *pid_of,
                     const waiting *w)
{
    rp_sample_table kept;
    rp_sample_table_init(&kept, table->aggregate);
    for (size_t i = 0; i < table->count; i++) {
        const rp_sample *s = &table->samples[i];
        bool idle = thread_idle(t, pid_of[s->label_set], s->thread_seq) || sample_waits(p, w, s);
        if (!idle && rp_sample_table_add(&kept, s->stack, s->thread_seq, s->label_set, s->weight) != RP_SAMPLE_OK) {
            rp_sample_table_free(&kept);
            return -1;
        }
    }
    rp_sample_table_free(table);
    *table = kept;
    return 0;
}

bool rp_label_set_in_request(const rp_profile *p, uint32_t set)
{
    static const char *const keys[] = {RP_LABEL_LATENCY, RP_LABEL_SPAN};
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        rp_label_key key = rp_label_key_of(p, keys[k]);
        if (key.id != RP_IDX_NONE && rp_profile_label_value(p, set, key.id) != RP_IDX_NONE)
            return true;
    }
    return false;
}

bool rp_profile_has_requests_labels(const rp_profile *p)
{
    return rp_label_key_of(p, RP_LABEL_LATENCY).id != RP_IDX_NONE || rp_label_key_of(p, RP_LABEL_SPAN).id != RP_IDX_NONE;
}

/* The label sets outside requests and the waiting frames, when some
 * label set is inside one. Returns 0 or -1 (out of memory). */
static int describe_waiting(const rp_profile *p, waiting *w)
{
    *w = (waiting){0};
    if (!rp_profile_has_requests_labels(p))
        return 0;
    w->outside = rp_alloc_array(p->label_set_count + 1, sizeof(*w->outside));
    w->waits = rp_alloc_array(p->frame_count + 1, sizeof(*w->waits));
    if (!w->outside || !w->waits)
        return -1;
    for (size_t i = 0; i < p->label_set_count; i++)
        w->outside[i] = !rp_label_set_in_request(p, (uint32_t)i);
    for (size_t f = 0; f < p->frame_count; f++)
        w->waits[f] = rp_is_idle_wait(rp_profile_str(p, p->frames[f].label));
    return 0;
}

int rp_filter_idle_threads(rp_profile *p, rp_idle_threads *out)
{
    *out = (rp_idle_threads){0};
    uint32_t *pid_of = NULL;
    bool *blocked = NULL;
    thread_times t = {0};
    rp_idxset_init(&t.index);
    waiting w;
    int rc = describe_waiting(p, &w) == 0 ? describe_sets(p, &pid_of, &blocked) : -1;
    const rp_sample_table *time = rp_profile_table(p, RP_MEASURE_TIME);
    for (size_t i = 0; rc == 0 && i < time->count; i++) {
        const rp_sample *s = &time->samples[i];
        thread_time *th = thread_of(&t, pid_of[s->label_set], s->thread_seq);
        if (!th) {
            rc = -1;
            break;
        }
        rp_add_saturating(&th->total, s->weight);
        if (blocked[s->label_set])
            rp_add_saturating(&th->blocked, s->weight);
    }
    for (size_t i = 0; rc == 0 && i < t.count; i++) {
        out->of_threads++;
        if (thread_idle(&t, t.items[i].pid, t.items[i].seq)) {
            out->threads++;
            rp_add_saturating(&out->weight, t.items[i].total);
        }
    }
    for (size_t i = 0; rc == 0 && w.outside && i < time->count; i++) {
        const rp_sample *s = &time->samples[i];
        if (!thread_idle(&t, pid_of[s->label_set], s->thread_seq) && sample_waits(p, &w, s))
            rp_add_saturating(&out->waiting_weight, s->weight);
    }
    for (int k = 0; rc == 0 && (out->threads > 0 || out->waiting_weight > 0) && k < RP_MEASURES; k++)
        rc = drop_idle(p, rp_profile_table(p, (rp_measure)k), &t, pid_of, &w);
    free(w.outside);
    free(w.waits);
    free(pid_of);
    free(blocked);
    free(t.items);
    rp_idxset_free(&t.index);
    if (rc != 0)
        rp_error("out of memory");
    return rc;
}
