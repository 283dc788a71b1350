/*
 * agent/sampling/frame_names.c — the frame name store. See frame_names.h.
 *
 * Paths and labels are interned apart (a file's path is shared by all its
 * methods), and a name is the triple of their ids and the first line.
 */
#include "frame_names.h"

#include <stdbool.h>
#include <string.h>

#include "../../common/hash.h"
#include "../../common/idxset.h"
#include "../../common/strtab.h"
#include "../../common/vec.h"
#include "../base/log.h"

typedef struct stored_name {
    uint32_t path, label, first_line;
} stored_name;

static rp_strtab strings;
static stored_name *names;
static size_t name_count, names_cap;
static rp_idxset name_index;
static uint32_t other_id = RP_IDX_NONE;
static bool said_full;

static uint64_t name_hash(const stored_name *n)
{
    return rp_hash_combine(rp_hash_combine(rp_hash_mix64(n->path), n->label), n->first_line);
}

static bool name_equals(const void *ctx, uint32_t i)
{
    const stored_name *n = ctx;
    return names[i].path == n->path && names[i].label == n->label && names[i].first_line == n->first_line;
}

static uint32_t add_name(const stored_name *n, uint64_t hash)
{
    if (RP_VEC_RESERVE(names, names_cap, name_count + 1) != 0 ||
        rp_idxset_insert(&name_index, hash, (uint32_t)name_count) != 0)
        return RP_IDX_NONE;
    names[name_count] = *n;
    return (uint32_t)name_count++;
}

/* The shared name of what is past the bound, made when first needed. */
static uint32_t other_name(void)
{
    if (other_id != RP_IDX_NONE)
        return other_id;
    stored_name n = {rp_strtab_intern(&strings, "", 0),
                     rp_strtab_intern(&strings, RP_FRAME_NAMES_OTHER, strlen(RP_FRAME_NAMES_OTHER)), 0};
    if (n.path == RP_IDX_NONE || n.label == RP_IDX_NONE)
        return RP_IDX_NONE;
    return other_id = add_name(&n, name_hash(&n));
}

static uint32_t find_string(const char *s, size_t len)
{
    return rp_strtab_find(&strings, s, len);
}

/* Whether no new name fits; said once, when it first happens. */
static bool store_full(void)
{
    bool full = name_count >= RP_FRAME_NAMES_MAX || strings.arena_len >= RP_FRAME_NAMES_BYTES;
    if (full && !said_full) {
        said_full = true;
        rp_log("frame names: the bound is reached (%zu names, %zu MB of text): frames first seen from now "
               "on are counted under \"%s\"",
               name_count, strings.arena_len >> 20, RP_FRAME_NAMES_OTHER);
    }
    return full;
}

uint32_t rp_frame_names_intern(const rp_named_frame *name)
{
    bool full = store_full();
    stored_name n = full ? (stored_name){find_string(name->path, name->path_len),
                                         find_string(name->label, name->label_len), name->first_line}
                         : (stored_name){rp_strtab_intern(&strings, name->path, name->path_len),
                                         rp_strtab_intern(&strings, name->label, name->label_len),
                                         name->first_line};
    if (n.path == RP_IDX_NONE || n.label == RP_IDX_NONE)
        return full ? other_name() : RP_IDX_NONE;
    uint64_t hash = name_hash(&n);
    uint32_t id = rp_idxset_find(&name_index, hash, name_equals, &n);
    if (id != RP_IDX_NONE)
        return id;
    return full ? other_name() : add_name(&n, hash);
}

rp_named_frame rp_frame_names_get(uint32_t id)
{
    rp_named_frame out = {.first_line = names[id].first_line};
    out.path = rp_strtab_get(&strings, names[id].path, &out.path_len);
    out.label = rp_strtab_get(&strings, names[id].label, &out.label_len);
    return out;
}

void rp_frame_names_footprint(size_t *count, size_t *bytes)
{
    *count = name_count;
    *bytes = strings.arena_cap + strings.entries_cap * sizeof(rp_strtab_entry) +
             strings.index.capacity * sizeof(rp_idxset_slot) + names_cap * sizeof(stored_name) +
             name_index.capacity * sizeof(rp_idxset_slot);
}

void rp_frame_names_reset(void)
{
    rp_strtab_free(&strings);
    free(names);
    names = NULL;
    name_count = names_cap = 0;
    rp_idxset_free(&name_index);
    rp_idxset_init(&name_index);
    other_id = RP_IDX_NONE;
    said_full = false;
}
