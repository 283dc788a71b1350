/*
 * agent/base/recording.c — the recordings and their schedules. See
 * recording.h.
 */
#include "recording.h"

#include <string.h>
#include <time.h>

static rp_recording recordings[RP_RECORDINGS];
/* Clock epochs count up across recordings, so an epoch never comes back
 * (a thread's clock of a closed session is never taken for a new one's). */
static uint32_t last_epoch;
uint32_t rp_recordings_accepting_changed; /* GVL holders only */

rp_recording *rp_recording_get(rp_rec_id id)
{
    return &recordings[id];
}

static void reset_counters(rp_recording *r)
{
    r->stats = (rp_sampler_stats){0};
    atomic_store(&r->trigger_count, 0);
}

/* Starts taking samples: the next tick is due one period from now, and a
 * tick counted before a pause is not served after it. */
static void accept(rp_recording *r)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    atomic_store(&r->next_tick_ns, (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec + r->period_ns);
    atomic_store(&r->trigger_count, r->stats.ticks_served);
    atomic_store(&r->accepting, true);
    rp_recordings_accepting_changed++;
}

/* Takes no more samples. */
static void refuse(rp_recording *r)
{
    atomic_store(&r->accepting, false);
    rp_recordings_accepting_changed++;
}

void rp_recording_open(rp_rec_id id, const rp_rec_config *cfg, bool paused)
{
    rp_recording *r = &recordings[id];
    /* The tick reads a recording only while it accepts (acquire): none
     * sees the fields below change under it. */
    refuse(r);
    r->cfg = *cfg;
    atomic_store_explicit(&r->period_ns, 1000000000LL / cfg->frequency, memory_order_relaxed);
    r->min_charge_ns = r->period_ns / 2;
    reset_counters(r);
    r->clock_epoch = r->open_epoch = ++last_epoch;
    r->open = true;
    if (!paused)
        accept(r);
}

void rp_recording_close(rp_rec_id id)
{
    rp_recording *r = &recordings[id];
    refuse(r);
    r->open = false;
}

void rp_recording_pause(rp_rec_id id)
{
    if (atomic_load(&recordings[id].accepting))
        refuse(&recordings[id]);
}

void rp_recording_resume(rp_rec_id id)
{
    rp_recording *r = &recordings[id];
    if (!r->open || atomic_load(&r->accepting))
        return;
    r->clock_epoch = ++last_epoch;
    accept(r);
}

uint32_t rp_recordings_epoch(void)
{
    return last_epoch;
}


bool rp_recordings_any_open(void)
{
    for (int i = 0; i < RP_RECORDINGS; i++)
        if (recordings[i].open)
            return true;
    return false;
}

bool rp_recordings_any_cpu_accepting(void)
{
    for (int i = 0; i < RP_RECORDINGS; i++)
        if (atomic_load_explicit(&recordings[i].accepting, memory_order_acquire) &&
            recordings[i].cfg.mode == RP_MODE_CPU)
            return true;
    return false;
}

int rp_recordings_tick_frequency(void)
{
    int hz = 0;
    for (int i = 0; i < RP_RECORDINGS; i++)
        if (atomic_load(&recordings[i].accepting) && recordings[i].cfg.frequency > hz)
            hz = recordings[i].cfg.frequency;
    return hz;
}

/* A tick within half a period of the due time counts: the timer fires at
 * the fastest recording's rate, with some jitter, and a recording at that
 * rate must count every tick. Ticks missed while the machine was busy are
 * skipped, not replayed. */
bool rp_recordings_tick(int64_t now)
{
    bool any = false;
    for (int i = 0; i < RP_RECORDINGS; i++) {
        rp_recording *r = &recordings[i];
        if (!atomic_load_explicit(&r->accepting, memory_order_acquire))
            continue;
        int64_t period = atomic_load_explicit(&r->period_ns, memory_order_relaxed);
        int64_t due = atomic_load_explicit(&r->next_tick_ns, memory_order_relaxed);
        if (now + period / 2 < due)
            continue;
        due += period;
        if (due < now)
            due = now + period;
        atomic_store_explicit(&r->next_tick_ns, due, memory_order_relaxed);
        atomic_fetch_add_explicit(&r->trigger_count, 1, memory_order_relaxed);
        any = true;
    }
    return any;
}

rp_sampler_stats rp_recording_stats(rp_rec_id id)
{
    rp_sampler_stats s = recordings[id].stats;
    s.trigger_count = atomic_load(&recordings[id].trigger_count);
    return s;
}

void rp_recordings_after_fork(void)
{
    for (int i = 0; i < RP_RECORDINGS; i++) {
        rp_recording_close((rp_rec_id)i);
        reset_counters(&recordings[i]);
    }
}
