/*
 * agent/window.c — profile windows. See window.h.
 */
#include "window.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "../common/clock.h"
#include "../common/vec.h"

static void stamp(rp_window *w)
{
    w->start_realtime_ns = rp_clock_ns(CLOCK_REALTIME);
    w->start_monotonic_ns = rp_clock_ns(CLOCK_MONOTONIC);
    w->stats = rp_recording_stats(w->recording);
    rp_ractors_totals(w->recording, w->ractor_ns);
    /* Ticks not yet served are served inside the window: count them there,
     * so that a window never has more samples than triggers. */
    if (w->stats.trigger_count > w->stats.sampling_count)
        w->stats.trigger_count = w->stats.sampling_count;
}

void rp_window_begin_empty(rp_window *w, rp_rec_id id)
{
    rp_window_free(w);
    w->recording = id;
    stamp(w);
    w->fold_dropped = 0;
    w->user_ns = w->sys_ns = 0;
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
}

void rp_window_begin_part(rp_window *w)
{
    stamp_with_cpu(w, 0);
}

int rp_window_begin_at(rp_window *w, rp_rec_id id)
{
    const rp_aggregate *agg = rp_aggregator_tables(id);
    size_t n = agg->samples.count;
    int64_t *weights = rp_alloc_array(n, sizeof(*weights));
    if (!weights)
        return -1;
    for (size_t i = 0; i < n; i++)
        weights[i] = agg->samples.samples[i].weight;
    w->recording = id;
    stamp_with_cpu(w, agg->dropped);
    w->weights = weights;
    w->count = n;
    return 0;
}

void rp_window_free(rp_window *w)
{
    free(w->weights);
    w->weights = NULL;
    w->count = 0;
}
