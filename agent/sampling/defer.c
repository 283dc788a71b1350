/*
 * agent/sampling/defer.c — pausing outside profile blocks. See defer.h.
 *
 * Pausing charges the closing block's last stretch (since its thread's
 * last sample) to each deferred recording, pauses it (a tick in flight
 * then takes nothing) and lets the timer stop when nothing else wants
 * ticks; resuming starts the ticks and then the recordings, whose new
 * clock epochs keep the paused time out of every thread's next sample.
 */
#include "defer.h"

#include "../vm/ractors.h"
#include "../base/recording.h"
#include "sampler.h"
#include "../vm/threads.h"
#include "worker.h"

static uint32_t open_blocks;

bool rp_defer_pauses(void)
{
    return open_blocks == 0;
}

/* Pauses or resumes the deferred recordings when the wanted state changed. */
static void apply(void)
{
    bool pause = rp_defer_pauses(), changed = false;
    for (int i = 0; i < RP_RECORDINGS; i++) {
        rp_rec_id id = (rp_rec_id)i;
        rp_recording *r = rp_recording_get(id);
        if (!r->open || !r->cfg.deferred || pause != atomic_load(&r->accepting))
            continue;
        changed = true;
        if (pause) {
            rp_sampler_charge_current(id);
            rp_ractors_settle();
            rp_recording_pause(id);
        } else {
            rp_recording_resume(id);
            rp_sampler_start_clock(id);
        }
    }
    if (changed)
        rp_worker_update_ticks();
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
