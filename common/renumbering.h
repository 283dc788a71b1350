/*
 * common/renumbering.h — the ids a compaction keeps, and their new numbers.
 *
 * Owns: for one compaction of a store of `count` ids (frame names, a
 * table's stacks), which ids the holders reported in use, and the number
 * each kept id gets in the compacted store. A compaction asks the holders
 * twice, through functions of the id alone: once to keep (the id comes
 * back unchanged), once to renumber (RP_IDX_NONE, and any id past the
 * store's, pass through unchanged).
 */
#ifndef RPERF_COMMON_RENUMBERING_H
#define RPERF_COMMON_RENUMBERING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct rp_renumbering {
    bool *kept;      /* id -> reported in use */
    uint32_t *moved; /* id -> its number after the compaction (RP_IDX_NONE: let go) */
    size_t count;
} rp_renumbering;

static inline void rp_renumbering_end(rp_renumbering *r)
{
    free(r->kept);
    free(r->moved);
    *r = (rp_renumbering){0};
}

/* Nothing kept yet. Returns 0, or -1 when out of memory. */
static inline int rp_renumbering_begin(rp_renumbering *r, size_t count)
{
    r->count = count;
    r->kept = calloc(count ? count : 1, sizeof(*r->kept));
    r->moved = malloc((count ? count : 1) * sizeof(*r->moved));
    if (r->kept && r->moved)
        return 0;
    rp_renumbering_end(r);
    return -1;
}

static inline uint32_t rp_renumbering_keep(rp_renumbering *r, uint32_t id)
{
    if (id < r->count)
        r->kept[id] = true;
    return id;
}

static inline uint32_t rp_renumbering_move(const rp_renumbering *r, uint32_t id)
{
    return id < r->count ? r->moved[id] : id;
}

#endif
