/*
 * common/strtab.c — string interning over one growing arena.
 * See strtab.h for what it owns.
 */
#include "strtab.h"

#include <string.h>

#include "hash.h"
#include "vec.h"

void rp_strtab_init(rp_strtab *tab)
{
    memset(tab, 0, sizeof(*tab));
    rp_idxset_init(&tab->index);
}

void rp_strtab_free(rp_strtab *tab)
{
    free(tab->arena);
    free(tab->entries);
    rp_idxset_free(&tab->index);
    rp_strtab_init(tab);
}

struct str_key {
    const rp_strtab *tab;
    const char *s;
    size_t len;
};

static bool str_equals(const void *ctx, uint32_t index)
{
    const struct str_key *key = ctx;
    const rp_strtab_entry *e = &key->tab->entries[index];
    return e->length == key->len && memcmp(key->tab->arena + e->offset, key->s, key->len) == 0;
}

static uint32_t find_hashed(const rp_strtab *tab, const char *s, size_t len, uint64_t hash)
{
    struct str_key key = {tab, s, len};
    return rp_idxset_find(&tab->index, hash, str_equals, &key);
}

uint32_t rp_strtab_find(const rp_strtab *tab, const char *s, size_t len)
{
    return find_hashed(tab, s, len, rp_hash_bytes(s, len));
}

uint32_t rp_strtab_intern(rp_strtab *tab, const char *s, size_t len)
{
    uint64_t hash = rp_hash_bytes(s, len);
    uint32_t found = find_hashed(tab, s, len, hash);
    if (found != RP_IDX_NONE)
        return found;
    if (tab->count >= RP_IDX_NONE - 1 || len > SIZE_MAX - tab->arena_len - 1)
        return RP_IDX_NONE;
    if (RP_VEC_RESERVE(tab->entries, tab->entries_cap, tab->count + 1) != 0 ||
        RP_VEC_RESERVE(tab->arena, tab->arena_cap, tab->arena_len + len + 1) != 0)
        return RP_IDX_NONE;
    uint32_t id = (uint32_t)tab->count;
    if (rp_idxset_insert(&tab->index, hash, id) != 0)
        return RP_IDX_NONE;
    memcpy(tab->arena + tab->arena_len, s, len);
    tab->arena[tab->arena_len + len] = '\0';
    tab->entries[id] = (rp_strtab_entry){tab->arena_len, len};
    tab->arena_len += len + 1;
    tab->count++;
    return id;
}

const char *rp_strtab_get(const rp_strtab *tab, uint32_t id, size_t *len)
{
    const rp_strtab_entry *e = &tab->entries[id];
    if (len)
        *len = e->length;
    return tab->arena + e->offset;
}
