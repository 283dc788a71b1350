/*
 * agent/sampling/frame_names.c — the frame name store. See frame_names.h.
 *
 * Paths and labels are interned apart (a file's path is shared by all its
 * methods), and a name is the triple of their ids and the first line.
 */
#include "frame_names.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/hash.h"
#include "../../common/idxset.h"
#include "../../common/renumbering.h"
#include "../../common/strtab.h"
#include "../../common/vec.h"
#include "../base/log.h"

typedef struct stored_name {
    uint32_t path, label, first_line;
} stored_name;

typedef struct name_store {
    rp_strtab strings;
    stored_name *names;
    size_t count, cap;
    rp_idxset index;
    uint32_t other_id; /* the "[other frames]" name, once made */
} name_store;

static name_store store = {.other_id = RP_IDX_NONE};
static bool said_full;

static uint64_t name_hash(const stored_name *n)
{
    return rp_hash_combine(rp_hash_combine(rp_hash_mix64(n->path), n->label), n->first_line);
}

typedef struct name_key {
    const name_store *in;
    const stored_name *name;
} name_key;

static bool name_equals(const void *ctx, uint32_t i)
{
    const name_key *k = ctx;
    const stored_name *a = &k->in->names[i], *b = k->name;
    return a->path == b->path && a->label == b->label && a->first_line == b->first_line;
}

static uint32_t find_name(const name_store *s, const stored_name *n, uint64_t hash)
{
    name_key key = {s, n};
    return rp_idxset_find(&s->index, hash, name_equals, &key);
}

static uint32_t add_name(name_store *s, const stored_name *n, uint64_t hash)
{
    if (RP_VEC_RESERVE(s->names, s->cap, s->count + 1) != 0 ||
        rp_idxset_insert(&s->index, hash, (uint32_t)s->count) != 0)
        return RP_IDX_NONE;
    s->names[s->count] = *n;
    return (uint32_t)s->count++;
}

/* The name of `path` and `label` in store `s`, added when new. */
static uint32_t intern_in(name_store *s, const char *path, size_t path_len, const char *label, size_t label_len,
                          uint32_t first_line)
{
    stored_name n = {rp_strtab_intern(&s->strings, path, path_len),
                     rp_strtab_intern(&s->strings, label, label_len), first_line};
    if (n.path == RP_IDX_NONE || n.label == RP_IDX_NONE)
        return RP_IDX_NONE;
    uint64_t hash = name_hash(&n);
    uint32_t id = find_name(s, &n, hash);
    return id != RP_IDX_NONE ? id : add_name(s, &n, hash);
}

/* The shared name of what is past the bound, made when first needed. */
static uint32_t other_name(void)
{
    if (store.other_id == RP_IDX_NONE)
        store.other_id = intern_in(&store, "", 0, RP_FRAME_NAMES_OTHER, strlen(RP_FRAME_NAMES_OTHER), 0);
    return store.other_id;
}

/* Whether a new name of `text_len` bytes does not fit; said once, when it
 * first happens (a compaction may make room again). */
static bool store_full(size_t text_len)
{
    bool full = store.count >= RP_FRAME_NAMES_MAX || store.strings.arena_len + text_len > RP_FRAME_NAMES_BYTES;
    if (full && !said_full) {
        said_full = true;
        rp_log("frame names: the bound is reached (%zu names, %.1f of %zu MB of text): frames first seen "
               "from now on are counted under \"%s\"",
               store.count, (double)store.strings.arena_len / (1 << 20), RP_FRAME_NAMES_BYTES >> 20,
               RP_FRAME_NAMES_OTHER);
    }
    return full;
}

uint32_t rp_frame_names_intern(const rp_named_frame *name)
{
    if (!store_full(name->path_len + name->label_len))
        return intern_in(&store, name->path, name->path_len, name->label, name->label_len, name->first_line);
    stored_name n = {rp_strtab_find(&store.strings, name->path, name->path_len),
                     rp_strtab_find(&store.strings, name->label, name->label_len), name->first_line};
    uint32_t id = n.path == RP_IDX_NONE || n.label == RP_IDX_NONE ? RP_IDX_NONE : find_name(&store, &n, name_hash(&n));
    return id != RP_IDX_NONE ? id : other_name();
}

static rp_named_frame name_in(const name_store *s, uint32_t id)
{
    rp_named_frame out = {.first_line = s->names[id].first_line};
    out.path = rp_strtab_get(&s->strings, s->names[id].path, &out.path_len);
    out.label = rp_strtab_get(&s->strings, s->names[id].label, &out.label_len);
    return out;
}

rp_named_frame rp_frame_names_get(uint32_t id)
{
    return name_in(&store, id);
}

void rp_frame_names_footprint(size_t *count, size_t *bytes)
{
    *count = store.count;
    *bytes = store.strings.arena_cap + store.strings.entries_cap * sizeof(rp_strtab_entry) +
             store.strings.index.capacity * sizeof(rp_idxset_slot) + store.cap * sizeof(stored_name) +
             store.index.capacity * sizeof(rp_idxset_slot);
}

static void free_store(name_store *s)
{
    rp_strtab_free(&s->strings);
    free(s->names);
    rp_idxset_free(&s->index);
    *s = (name_store){.other_id = RP_IDX_NONE};
}

/* --- compaction -------------------------------------------------------- */

/* The names the holders reported, and their numbers in the new store
 * (during one rp_frame_names_compact: the GVL serialises it). */
static rp_renumbering names_held;

static uint32_t keep(uint32_t id)
{
    return rp_renumbering_keep(&names_held, id);
}

static uint32_t renumber(uint32_t id)
{
    return rp_renumbering_move(&names_held, id);
}

/* A store of the kept names only, in their old order; -1 when out of
 * memory (then `fresh` is freed). */
static int copy_kept(name_store *fresh)
{
    for (size_t i = 0; i < names_held.count; i++) {
        names_held.moved[i] = RP_IDX_NONE;
        if (!names_held.kept[i])
            continue;
        rp_named_frame n = name_in(&store, (uint32_t)i);
        names_held.moved[i] = intern_in(fresh, n.path, n.path_len, n.label, n.label_len, n.first_line);
        if (names_held.moved[i] == RP_IDX_NONE) {
            free_store(fresh);
            return -1;
        }
    }
    if (store.other_id != RP_IDX_NONE && names_held.kept[store.other_id])
        fresh->other_id = names_held.moved[store.other_id];
    return 0;
}

int rp_frame_names_compact(void (*holders)(rp_frame_name_fn *fn))
{
    name_store fresh = {.other_id = RP_IDX_NONE};
    int rc = rp_renumbering_begin(&names_held, store.count);
    if (rc == 0) {
        holders(keep);
        rc = copy_kept(&fresh);
    }
    if (rc == 0) {
        holders(renumber);
        free_store(&store);
        store = fresh;
    }
    rp_renumbering_end(&names_held);
    return rc;
}

void rp_frame_names_reset(void)
{
    free_store(&store);
    said_full = false;
}
