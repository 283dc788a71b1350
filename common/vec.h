/*
 * common/vec.h — growth of the dense arrays that back every table.
 *
 * Owns: the one rule for growing a malloc'ed array (doubling, overflow
 * checked), and for allocating one of a known length (overflow checked,
 * never of size 0, so NULL always means out of memory). Header-only.
 */
#ifndef RPERF_COMMON_VEC_H
#define RPERF_COMMON_VEC_H

#include <stdint.h>
#include <stdlib.h>

/* Makes room for `needed` elements of `elem_size` bytes in *items.
 * Returns 0, or -1 on overflow or exhausted memory (*items unchanged). */
static inline int rp_vec_reserve(void **items, size_t *capacity, size_t needed, size_t elem_size)
{
    if (needed <= *capacity)
        return 0;
    size_t cap = *capacity ? *capacity : 16;
    while (cap < needed) {
        if (cap > SIZE_MAX / 2)
            return -1;
        cap *= 2;
    }
    if (cap > SIZE_MAX / elem_size)
        return -1;
    void *grown = realloc(*items, cap * elem_size);
    if (!grown)
        return -1;
    *items = grown;
    *capacity = cap;
    return 0;
}

/* An array of `n` elements of `elem_size` bytes (room for one when `n` is
 * 0), or NULL when out of memory or when n * elem_size overflows. */
static inline void *rp_alloc_array(size_t n, size_t elem_size)
{
    return reallocarray(NULL, n ? n : 1, elem_size);
}

/* The same, zeroed. */
static inline void *rp_calloc_array(size_t n, size_t elem_size)
{
    return calloc(n ? n : 1, elem_size);
}

/* rp_vec_reserve for a typed pointer: RP_VEC_RESERVE(arr, cap, n). */
#define RP_VEC_RESERVE(items, capacity, needed) \
    rp_vec_reserve((void **)&(items), &(capacity), (needed), sizeof(*(items)))

#endif
