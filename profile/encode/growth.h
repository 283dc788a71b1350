/*
 * profile/encode/growth.h — allocation sites whose live objects grow part
 * after part (rperf-analyze growth): leak finding for servers recorded
 * with RPERF_INTERVAL and RPERF_ALLOC.
 *
 * Owns: the retained objects of each part by allocation site — the
 * innermost frame of the allocation stack that is Ruby code (a C method
 * such as String.new or Array#push is where the object was made, not the
 * code that made it), per line with --lines — summed over the processes
 * for each part number, and per site the least-squares slope of its live
 * objects over the parts' end times, its first and last values and how
 * many parts it grew in. Heaviest slope first; only sites that grew.
 */
#ifndef RPERF_PROFILE_ENCODE_GROWTH_H
#define RPERF_PROFILE_ENCODE_GROWTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/out.h"
#include "../merge.h"
#include "../profile.h"

typedef struct rp_growth_point {
    int64_t part;   /* the part's number (meta.part) */
    uint32_t site;  /* frame id of the merged profile */
    int64_t objects;
} rp_growth_point;

typedef struct rp_growth_part {
    int64_t part, end_ns; /* the latest end of the files of that number */
} rp_growth_part;

typedef struct rp_growth {
    rp_growth_point *points;
    size_t count, cap;
    rp_growth_part *parts;
    size_t part_count, parts_cap;
    int64_t alloc_rate;
    size_t files_without_memory;
} rp_growth;

/* A load visitor (load.h): the retained objects of one file by site.
 * Returns 0 or -1 (out of memory). */
int rp_growth_add(rp_growth *g, const rp_profile *merged, const rp_merge_pending *file);

/* One site's figures. */
typedef struct rp_growth_row {
    uint32_t site;
    double per_minute;      /* least-squares slope of its objects over time */
    int64_t first, last;    /* objects alive at the end of the first and the last part */
    size_t grew;            /* parts whose end had more of them than the previous part's */
} rp_growth_row;

/* The rows of the sites that grew (slope > 0 and last > first), heaviest
 * slope first, into a malloc'd *rows. Returns their count, or -1 (out of
 * memory). Needs at least two parts (g->part_count). */
long rp_growth_rows(rp_growth *g, rp_growth_row **rows);

/* The table: at most `top` rows (-1: all); with `json` a JSON array of
 * objects instead (keys site, objects_per_minute, first, last, grew_parts,
 * parts). Returns 0 or -1. */
int rp_growth_write(rp_growth *g, const rp_profile *merged, rp_out *out, int top, bool json);

void rp_growth_free(rp_growth *g);

#endif
