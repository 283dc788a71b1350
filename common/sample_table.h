/*
 * common/sample_table.h — weighted samples, aggregated or raw.
 *
 * Owns: the list of samples (stack id, thread_seq, label set id, weight in
 * ns). In aggregate mode samples with the same (stack, thread, label set)
 * are folded into one entry whose weight is the sum; in raw mode every
 * sample is kept in arrival order (RPERF_AGGREGATE=0), with the time it
 * was taken when one is given.
 */
#ifndef RPERF_COMMON_SAMPLE_TABLE_H
#define RPERF_COMMON_SAMPLE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "idxset.h"

typedef struct rp_sample {
    uint32_t stack;
    uint32_t thread_seq;
    uint32_t label_set;
    int64_t weight; /* nanoseconds, >= 0 */
} rp_sample;

typedef struct rp_sample_table {
    rp_sample *samples;
    size_t count, cap;
    rp_idxset index; /* only used when aggregating */
    bool aggregate;
    /* Raw mode: when each sample was taken (ns; a clock the caller
     * chooses; 0: not said), allocated once a time is given, parallel to
     * samples[]; NULL otherwise. */
    int64_t *times;
    size_t times_cap;
} rp_sample_table;

enum rp_sample_add_result {
    RP_SAMPLE_OK = 0,
    RP_SAMPLE_NOMEM = -1,
    RP_SAMPLE_OVERFLOW = -2, /* the summed weight would exceed INT64_MAX */
};

void rp_sample_table_init(rp_sample_table *t, bool aggregate);
void rp_sample_table_free(rp_sample_table *t);
/* Room for `count` more samples, taken at once. Returns 0 or -1. */
int rp_sample_table_reserve(rp_sample_table *t, size_t count);
/* No sample any more; the samples' memory and index stay for the samples
 * to come (raw mode's times are let go). */
void rp_sample_table_empty(rp_sample_table *t);

enum rp_sample_add_result rp_sample_table_add(rp_sample_table *t, uint32_t stack,
                                              uint32_t thread_seq, uint32_t label_set,
                                              int64_t weight);

/* The same, with the time the sample was taken (kept in raw mode only). */
enum rp_sample_add_result rp_sample_table_add_at(rp_sample_table *t, uint32_t stack, uint32_t thread_seq,
                                                 uint32_t label_set, int64_t weight, int64_t time_ns);

/* *dst += w, stopping at INT64_MAX instead of overflowing: totals of
 * weights are shown, never used to index anything. */
static inline void rp_add_saturating(int64_t *dst, int64_t w)
{
    if (__builtin_add_overflow(*dst, w, dst))
        *dst = INT64_MAX;
}

/* Sample i's time, 0 when the table has none. */
static inline int64_t rp_sample_time(const rp_sample_table *t, size_t i)
{
    return t->times ? t->times[i] : 0;
}

/* Sum of all weights; saturates at INT64_MAX. */
int64_t rp_sample_table_total(const rp_sample_table *t);

#endif
