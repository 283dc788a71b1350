/*
 * common/sample_table.c — weighted samples, aggregated or raw.
 * See sample_table.h.
 */
#include "sample_table.h"

#include <string.h>

#include "hash.h"
#include "vec.h"

void rp_sample_table_init(rp_sample_table *t, bool aggregate)
{
    memset(t, 0, sizeof(*t));
    rp_idxset_init(&t->index);
    t->aggregate = aggregate;
}

void rp_sample_table_free(rp_sample_table *t)
{
    bool aggregate = t->aggregate;
    free(t->samples);
    free(t->times);
    rp_idxset_free(&t->index);
    rp_sample_table_init(t, aggregate);
}

int rp_sample_table_reserve(rp_sample_table *t, size_t count)
{
    return RP_VEC_RESERVE(t->samples, t->cap, t->count + count) != 0 ||
                   (t->aggregate && rp_idxset_reserve(&t->index, t->count + count) != 0)
               ? -1
               : 0;
}

void rp_sample_table_empty(rp_sample_table *t)
{
    free(t->times);
    t->times = NULL;
    t->times_cap = 0;
    t->count = 0;
    rp_idxset_empty(&t->index);
}

static uint64_t key_hash(uint32_t stack, uint32_t thread_seq, uint32_t label_set)
{
    return rp_hash_combine(rp_hash_mix64(stack), ((uint64_t)thread_seq << 32) | label_set);
}

struct sample_key {
    const rp_sample_table *t;
    uint32_t stack, thread_seq, label_set;
};

static bool sample_equals(const void *ctx, uint32_t index)
{
    const struct sample_key *k = ctx;
    const rp_sample *s = &k->t->samples[index];
    return s->stack == k->stack && s->thread_seq == k->thread_seq && s->label_set == k->label_set;
}

/* Raw mode: sample `id`'s time, the array grown (earlier samples: 0). */
static int set_time(rp_sample_table *t, uint32_t id, int64_t time_ns)
{
    if (!t->times && time_ns == 0)
        return 0;
    size_t had = t->times ? t->times_cap : 0;
    if (RP_VEC_RESERVE(t->times, t->times_cap, (size_t)id + 1) != 0)
        return -1;
    if (t->times_cap > had)
        memset(t->times + had, 0, (t->times_cap - had) * sizeof(*t->times));
    t->times[id] = time_ns;
    return 0;
}

enum rp_sample_add_result rp_sample_table_add(rp_sample_table *t, uint32_t stack,
                                              uint32_t thread_seq, uint32_t label_set,
                                              int64_t weight)
{
    return rp_sample_table_add_at(t, stack, thread_seq, label_set, weight, 0);
}

enum rp_sample_add_result rp_sample_table_add_at(rp_sample_table *t, uint32_t stack, uint32_t thread_seq,
                                                 uint32_t label_set, int64_t weight, int64_t time_ns)
{
    uint64_t hash = 0;
    if (t->aggregate) {
        hash = key_hash(stack, thread_seq, label_set);
        struct sample_key key = {t, stack, thread_seq, label_set};
        uint32_t found = rp_idxset_find(&t->index, hash, sample_equals, &key);
        if (found != RP_IDX_NONE) {
            int64_t *w = &t->samples[found].weight;
            if (__builtin_add_overflow(*w, weight, w))
                return RP_SAMPLE_OVERFLOW;
            return RP_SAMPLE_OK;
        }
    }
    if (t->count >= RP_IDX_NONE - 1 || RP_VEC_RESERVE(t->samples, t->cap, t->count + 1) != 0)
        return RP_SAMPLE_NOMEM;
    uint32_t id = (uint32_t)t->count;
    if (t->aggregate && rp_idxset_insert(&t->index, hash, id) != 0)
        return RP_SAMPLE_NOMEM;
    if (!t->aggregate && set_time(t, id, time_ns) != 0)
        return RP_SAMPLE_NOMEM;
    t->samples[id] = (rp_sample){stack, thread_seq, label_set, weight};
    t->count++;
    return RP_SAMPLE_OK;
}

int64_t rp_sample_table_total(const rp_sample_table *t)
{
    int64_t total = 0;
    for (size_t i = 0; i < t->count; i++)
        rp_add_saturating(&total, t->samples[i].weight);
    return total;
}
