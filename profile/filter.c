/*
 * profile/filter.c — the filter stage. See filter.h.
 */
#include "filter.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "merge.h"

static bool has_lines(const rp_profile *p)
{
    for (size_t i = 0; i < p->frame_count; i++)
        if (p->frames[i].line)
            return true;
    return false;
}

/* One frame per method: the profile merged again, without its lines. */
static int drop_lines(rp_profile *p)
{
    rp_profile methods;
    char err[RP_MERGE_ERROR_MAX];
    if (rp_profile_init(&methods, p->samples.aggregate) != 0) {
        rp_profile_free(&methods);
        rp_error("out of memory");
        return -1;
    }
    if (rp_merge_into(&methods, p, 0, false, err) != 0) {
        rp_profile_free(&methods);
        rp_error("%s", err);
        return -1;
    }
    methods.load = p->load; /* what loading selected, slots included */
    p->load = (rp_load_facts){0};
    rp_profile_free(p);
    *p = methods;
    return 0;
}

/* --- label filters (--tagfocus, --tagignore) ------------------------------ */

static bool value_matches(const rp_tag_filter *f, const char *value)
{
    return regexec(&f->re, value, 0, NULL, 0) == 0;
}

/* Whether one filter matches a sample of label set `set` and thread `seq`:
 * its key's value does (thread_seq is a key too), or, without a key, any
 * label's value does. */
static bool filter_matches(const rp_profile *p, const rp_tag_filter *f, uint32_t set, uint32_t seq)
{
    const rp_label_set *ls = &p->label_sets[set];
    if (f->key && strcmp(f->key, "thread_seq") == 0) {
        char text[16];
        snprintf(text, sizeof(text), "%" PRIu32, seq);
        return value_matches(f, text);
    }
    for (uint32_t i = 0; i < ls->count; i++) {
        const rp_label *l = &p->labels[ls->first + i];
        if ((!f->key || strcmp(f->key, rp_profile_str(p, l->key)) == 0) &&
            value_matches(f, rp_profile_str(p, l->value)))
            return true;
    }
    return false;
}

/* Kept: every --tagfocus matches and no --tagignore does. */
static bool sample_kept(const rp_profile *p, const rp_options *o, uint32_t set, uint32_t seq)
{
    for (int i = 0; i < o->tag_count; i++)
        if (filter_matches(p, &o->tags[i], set, seq) == o->tags[i].ignore)
            return false;
    return true;
}

static bool filters_thread(const rp_options *o)
{
    for (int i = 0; i < o->tag_count; i++)
        if (o->tags[i].key && strcmp(o->tags[i].key, "thread_seq") == 0)
            return true;
    return false;
}

/* Whether each label set is kept, decided once per set rather than once
 * per sample (regexec is the cost), when no filter looks at the thread;
 * NULL otherwise, or when out of memory (then decided per sample). */
static bool *kept_sets(const rp_profile *p, const rp_options *o)
{
    if (filters_thread(o))
        return NULL;
    bool *kept = malloc((p->label_set_count ? p->label_set_count : 1) * sizeof(*kept));
    for (size_t i = 0; kept && i < p->label_set_count; i++)
        kept[i] = sample_kept(p, o, (uint32_t)i, 0);
    return kept;
}

static int select_by_labels(rp_profile *p, const rp_options *o)
{
    bool *by_set = kept_sets(p, o);
    rp_sample_table kept;
    rp_sample_table_init(&kept, p->samples.aggregate);
    for (size_t i = 0; i < p->samples.count; i++) {
        const rp_sample *s = &p->samples.samples[i];
        bool keep = by_set ? by_set[s->label_set] : sample_kept(p, o, s->label_set, s->thread_seq);
        if (keep && rp_sample_table_add(&kept, s->stack, s->thread_seq, s->label_set, s->weight) != RP_SAMPLE_OK) {
            free(by_set);
            rp_sample_table_free(&kept);
            rp_error("out of memory");
            return -1;
        }
    }
    free(by_set);
    rp_sample_table_free(&p->samples);
    p->samples = kept;
    return 0;
}

int rp_filter_apply(rp_profile *p, const rp_options *o, bool keep_lines)
{
    if (o->tag_count > 0 && select_by_labels(p, o) != 0)
        return -1;
    if (!keep_lines && !o->lines && has_lines(p))
        return drop_lines(p);
    return 0;
}
