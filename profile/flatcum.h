/*
 * profile/flatcum.h — flat and cumulative time per frame.
 *
 * Owns: the two tables every text view shows (analyzer report, stat
 * --report, the agent's verbose summary): flat = weight of samples whose
 * leaf is the frame; cumulative = weight of samples with the frame anywhere
 * on the stack, counted once per sample even under recursion.
 */
#ifndef RPERF_PROFILE_FLATCUM_H
#define RPERF_PROFILE_FLATCUM_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

typedef struct rp_frame_weight {
    uint32_t frame; /* frame id in the profile */
    int64_t weight; /* ns */
} rp_frame_weight;

typedef struct rp_flatcum {
    rp_frame_weight *flat; /* sorted by weight, heaviest first; zero weights left out */
    size_t flat_count;
    rp_frame_weight *cum;
    size_t cum_count;
    int64_t total; /* sum of all sample weights */
} rp_flatcum;

/* Returns 0, or -1 when out of memory. */
int rp_flatcum_compute(const rp_profile *p, rp_flatcum *out);
void rp_flatcum_free(rp_flatcum *fc);

#endif
