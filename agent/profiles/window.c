/*
 * agent/profiles/window.c — profile windows. See window.h.
 */
#include "window.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "../../common/clock.h"
#include "../../common/vec.h"
#include "../sampling/worker.h"

static void stamp(rp_window *w)
{
    w->start_realtime_ns = rp_clock_ns(CLOCK_REALTIME);
    w->start_monotonic_ns = rp_clock_ns(CLOCK_MONOTONIC);
    w->stats = rp_recording_stats(w->recording);
    rp_ractors_totals(w->recording, w->ractor_ns);
    rp_ractors_alloc_totals(w->recording, w->ractor_allocs);
    /* Ticks not yet served are served inside the window: count them there,
     * so that a window never has more samples than triggers. */
    if (w->stats.trigger_count > w->stats.ticks_served)
        w->stats.trigger_count = w->stats.ticks_served;
}

void rp_window_begin_empty(rp_window *w, rp_rec_id id)
{
    rp_window_free(w);
    w->recording = id;
    stamp(w);
    w->fold_dropped = 0;
    w->user_ns = w->sys_ns = 0;
    w->worker_cpu_ns = 0;
}

/* Times, counters and the process's CPU time now; no weights. */
static void stamp_with_cpu(rp_window *w, size_t fold_dropped)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    rp_window_free(w);
    stamp(w);
    w->fold_dropped = fold_dropped;
    w->user_ns = rp_timeval_ns(ru.ru_utime);
    w->sys_ns = rp_timeval_ns(ru.ru_stime);
    w->worker_cpu_ns = rp_worker_cpu_ns();
}

void rp_window_begin_part(rp_window *w)
{
    stamp_with_cpu(w, 0);
}

/* The weights of `table`'s entries now, in a malloc'd array (NULL when
 * it is empty or out of memory: see *ok). */
static int64_t *weights_of(const rp_sample_table *table, bool *ok)
{
    int64_t *weights = table->count ? rp_alloc_array(table->count, sizeof(*weights)) : NULL;
    if (table->count && !weights)
        *ok = false;
    for (size_t i = 0; weights && i < table->count; i++)
        weights[i] = table->samples[i].weight;
    return weights;
}

int rp_window_begin_at(rp_window *w, rp_rec_id id)
{
    const rp_aggregate *agg = rp_aggregator_tables(id);
    const rp_sample_table *allocs = &rp_aggregator_alloc_tables(id)->samples;
    bool ok = true;
    int64_t *weights = weights_of(&agg->samples, &ok), *alloc_weights = weights_of(allocs, &ok);
    if (!ok) {
        free(weights);
        free(alloc_weights);
        return -1;
    }
    w->recording = id;
    stamp_with_cpu(w, agg->dropped);
    w->weights = weights;
    w->count = agg->samples.count;
    w->alloc_weights = alloc_weights;
    w->alloc_count = allocs->count;
    return 0;
}

void rp_window_free(rp_window *w)
{
    free(w->weights);
    free(w->alloc_weights);
    w->weights = w->alloc_weights = NULL;
    w->count = w->alloc_count = 0;
}
