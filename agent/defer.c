/*
 * agent/defer.c — pausing outside profile blocks. See defer.h.
 *
 * Pausing charges the closing block's last stretch (since its thread's
 * last sample) to it, stops the sampler (a tick in flight then takes
 * nothing) and then the ticks; resuming starts the ticks and then the sampler,
 * whose new clock epoch keeps the paused time out of every thread's next
 * sample (sampler.h).
 */
#include "defer.h"

#include "sampler.h"
#include "threads.h"
#include "worker.h"

static bool configured, window; /* RPERF_DEFER; Rperf.start(defer: true) */
static uint32_t open_blocks;
static bool paused;

void rp_defer_init(bool deferred)
{
    configured = deferred;
}

bool rp_defer_pauses(void)
{
    return (configured || window) && open_blocks == 0;
}

void rp_defer_note_begin(bool is_paused)
{
    paused = is_paused;
}

/* Pauses or resumes when the wanted state changed. */
static void apply(void)
{
    bool pause = rp_defer_pauses();
    if (pause == paused)
        return;
    paused = pause;
    if (pause) {
        rp_sampler_charge_current();
        rp_sampler_stop();
        rp_worker_set_ticking(false);
    } else {
        rp_worker_set_ticking(true);
        rp_sampler_resume();
    }
}

void rp_defer_set_window(bool on)
{
    window = on;
    apply();
}

void rp_defer_enter(rp_thread *t)
{
    t->profile_depth++;
    open_blocks++;
    apply();
}

void rp_defer_leave(rp_thread *t)
{
    if (t->profile_depth == 0 || open_blocks == 0)
        return; /* entered before a fork by a thread that is not here */
    t->profile_depth--;
    open_blocks--;
    apply();
}

void rp_defer_after_fork(const rp_thread *forking)
{
    open_blocks = forking ? forking->profile_depth : 0;
}
