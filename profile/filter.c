/*
 * profile/filter.c — label filters. See filter.h.
 */
#include "filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/vec.h"
#include "diag.h"

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
        if (keep && rp_sample_table_add(&kept, s->stack, s->thread_seq, s->label_set, s->weight) != RP_SAMPLE_OK) {
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
