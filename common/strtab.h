/*
 * common/strtab.h — string interning.
 *
 * Owns: one copy of every distinct string of a profile (paths, labels,
 * label keys and values, command words), each named by a dense uint32 id.
 * Strings may contain any byte except that lookups compare by length, so
 * embedded NULs are kept exactly; every stored string is NUL-terminated.
 */
#ifndef RPERF_COMMON_STRTAB_H
#define RPERF_COMMON_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "idxset.h"

typedef struct rp_strtab_entry {
    size_t offset;
    size_t length;
} rp_strtab_entry;

typedef struct rp_strtab {
    char *arena;
    size_t arena_len, arena_cap;
    rp_strtab_entry *entries;
    size_t count, entries_cap;
    rp_idxset index;
} rp_strtab;

void rp_strtab_init(rp_strtab *tab);
void rp_strtab_free(rp_strtab *tab);

/* Returns the id of the string, adding it when new; RP_IDX_NONE when
 * memory is exhausted. */
uint32_t rp_strtab_intern(rp_strtab *tab, const char *s, size_t len);

/* Returns the id of the string, or RP_IDX_NONE when the table lacks it. */
uint32_t rp_strtab_find(const rp_strtab *tab, const char *s, size_t len);

/* Returns the string with id `id` (valid until the next intern). */
const char *rp_strtab_get(const rp_strtab *tab, uint32_t id, size_t *len);

#endif
