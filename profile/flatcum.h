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

#include "../common/strtab.h"
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

/* The same summed by method name (the frame's label: a method under two
 * paths counts once), as the gem's tables and summaries count: self is
 * the flat weight, total the cumulative. */
typedef struct rp_name_weight {
    const char *name;
    int64_t self, total;
} rp_name_weight;

typedef struct rp_by_name {
    rp_strtab names;
    rp_name_weight *list; /* by name id (rp_by_name_find) */
    size_t count, cap;
    int64_t total; /* every sample's weight */
} rp_by_name;

/* Returns 0, or -1 when out of memory (free it either way). */
int rp_by_name_compute(const rp_profile *p, rp_by_name *out);
void rp_by_name_free(rp_by_name *b);
/* The entry of method `name`, or NULL. */
const rp_name_weight *rp_by_name_find(const rp_by_name *b, const char *name);
/* The names with self time, heaviest first (ties by name), into a
 * malloc'd array of *count entries; NULL when out of memory. */
rp_name_weight *rp_by_name_by_self(const rp_by_name *b, size_t *count);

#endif
