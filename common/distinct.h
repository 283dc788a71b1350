/*
 * common/distinct.h — about how many distinct names went by, in 4 KiB.
 *
 * Owns: a HyperLogLog sketch of 4,096 registers (a standard error of
 * about 1.6%), for a table that stops keeping names past its bound and
 * still says how many it left out. Header-only, no allocation.
 */
#ifndef RPERF_COMMON_DISTINCT_H
#define RPERF_COMMON_DISTINCT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hash.h"

#define RP_DISTINCT_BITS 12
#define RP_DISTINCT_REGISTERS (1u << RP_DISTINCT_BITS)

typedef struct rp_distinct {
    uint8_t reg[RP_DISTINCT_REGISTERS];
} rp_distinct;

static inline void rp_distinct_clear(rp_distinct *d)
{
    memset(d->reg, 0, sizeof(d->reg));
}

static inline void rp_distinct_add(rp_distinct *d, const void *bytes, size_t len)
{
    uint64_t h = rp_hash_bytes(bytes, len);
    uint32_t r = (uint32_t)(h >> (64 - RP_DISTINCT_BITS));
    uint64_t rest = h << RP_DISTINCT_BITS;
    uint8_t rank = rest ? (uint8_t)(__builtin_clzll(rest) + 1) : (uint8_t)(64 - RP_DISTINCT_BITS + 1);
    if (rank > d->reg[r])
        d->reg[r] = rank;
}

/* The estimate, with the small-range correction (linear counting). */
static inline int64_t rp_distinct_count(const rp_distinct *d)
{
    const double m = RP_DISTINCT_REGISTERS;
    double sum = 0;
    unsigned zeros = 0;
    for (unsigned i = 0; i < RP_DISTINCT_REGISTERS; i++) {
        sum += ldexp(1.0, -(int)d->reg[i]);
        zeros += d->reg[i] == 0;
    }
    double estimate = 0.7213 / (1 + 1.079 / m) * m * m / sum;
    if (estimate <= 2.5 * m && zeros)
        estimate = m * log(m / zeros);
    return (int64_t)llround(estimate);
}

#endif
