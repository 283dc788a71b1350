/*
 * common/hash.h — the hash functions every table in rperf uses.
 *
 * Owns: hashing of byte strings, integers and integer sequences. Tables
 * (idxset, strtab, stack_table, ...) call these so that one good mixer
 * serves the whole project. Header-only: the agent's worker thread and the
 * analyzer inline them in their hot loops.
 */
#ifndef RPERF_COMMON_HASH_H
#define RPERF_COMMON_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Final avalanche of a 64-bit value (splitmix64 finaliser). */
static inline uint64_t rp_hash_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* Combines an accumulated hash with one more 64-bit word. */
static inline uint64_t rp_hash_combine(uint64_t h, uint64_t word)
{
    return rp_hash_mix64(h ^ (word + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

/* Hash of an arbitrary byte string, eight bytes at a time: one multiply
 * per word (interning hashes every frame's text of a profile), the final
 * avalanche making up for the light mixing. */
static inline uint64_t rp_hash_bytes(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 0x84222325cbf29ce4ULL ^ len;
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 32;
        p += 8;
        len -= 8;
    }
    if (len > 0) {
        uint64_t w = 0;
        memcpy(&w, p, len);
        h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
    }
    return rp_hash_mix64(h);
}

/* Hash of a sequence of 32-bit ids (stacks of frame ids). */
static inline uint64_t rp_hash_u32s(const uint32_t *ids, size_t n)
{
    uint64_t h = 0x6a09e667f3bcc909ULL ^ n;
    size_t i = 0;
    for (; i + 1 < n; i += 2)
        h = rp_hash_combine(h, (uint64_t)ids[i] | ((uint64_t)ids[i + 1] << 32));
    if (i < n)
        h = rp_hash_combine(h, ids[i]);
    return rp_hash_mix64(h);
}

#endif
