/*
 * agent/sampling/labels.c — the label set store. See labels.h.
 *
 * The store is a profile model used only for its strings and label sets
 * (profile/profile.h interns both, and makes set 0 the empty one), so a set
 * means the same thing here as in a profile file.
 */
#include "labels.h"

#include <stdlib.h>
#include <string.h>

#include "../../profile/profile.h"
#include "../../common/vec.h"
#include "../base/log.h"

static rp_profile store;
static bool store_ready;

int rp_labels_init(void)
{
    if (store_ready)
        return 0;
    if (rp_profile_init(&store, true) != 0)
        return -1;
    store_ready = true;
    return 0;
}

static const rp_label *pairs_of(uint32_t set, uint32_t *count)
{
    if (!store_ready || set >= store.label_set_count) {
        *count = 0;
        return NULL;
    }
    const rp_label_set *ls = &store.label_sets[set];
    *count = ls->count;
    return store.labels + ls->first;
}

/* Index of `key` in pairs[0..n), or n. */
static uint32_t find_key(const rp_label *pairs, uint32_t n, uint32_t key)
{
    uint32_t i = 0;
    while (i < n && pairs[i].key != key)
        i++;
    return i;
}

/* Whether a new string of `len` bytes is past the bound; said once. */
static bool past_bound(size_t len)
{
    static bool said;
    bool past = store.label_set_count >= RP_LABEL_SETS_BOUND || store.strings.arena_len + len > RP_LABEL_TEXT_BYTES;
    if (past && !said) {
        said = true;
        rp_log("labels: the bound is reached (%zu label sets, %.1f of %zu MB of text): keys and values first "
               "seen from now on are recorded as \"%s\"",
               store.label_set_count, (double)store.strings.arena_len / (1 << 20), RP_LABEL_TEXT_BYTES >> 20,
               RP_LABEL_OTHER);
    }
    return past;
}

/* A key or value of a set. Past RP_LABEL_SETS_BOUND sets or
 * RP_LABEL_TEXT_BYTES of text (a program that labels each request with
 * its id or a query's text, in a process that records for long without
 * parts) a string not in the store yet is RP_LABEL_OTHER: the store stops
 * growing with the program's data, and the profile says where values
 * were left out. */
static uint32_t label_string(const char *s, size_t len)
{
    if (!past_bound(len))
        return rp_profile_string(&store, s, len);
    uint32_t id = rp_strtab_find(&store.strings, s, len);
    return id != RP_IDX_NONE ? id : rp_profile_cstring(&store, RP_LABEL_OTHER);
}

/* Applies one change to pairs[0..*n) (which has room for one more). */
static int apply_change(rp_label *pairs, uint32_t *n, const rp_label_change *c)
{
    uint32_t key = label_string(c->key, c->key_len);
    if (key == RP_IDX_NONE)
        return -1;
    uint32_t at = find_key(pairs, *n, key);
    if (!c->value) {
        if (at < *n)
            pairs[at] = pairs[--*n];
        return 0;
    }
    uint32_t value = label_string(c->value, c->value_len);
    if (value == RP_IDX_NONE)
        return -1;
    pairs[at] = (rp_label){key, value};
    if (at == *n)
        ++*n;
    return 0;
}

uint32_t rp_labels_merge(uint32_t base, const rp_label_change *changes, size_t n)
{
    if (!store_ready)
        return RP_IDX_NONE;
    uint32_t count;
    const rp_label *base_pairs = pairs_of(base, &count);
    rp_label small[16] = {{0, 0}};
    size_t room = count + n;
    rp_label *pairs = room <= 16 ? small : rp_alloc_array(room, sizeof(*pairs));
    if (!pairs)
        return RP_IDX_NONE;
    if (count)
        memcpy(pairs, base_pairs, count * sizeof(*pairs));
    size_t i = 0;
    while (i < n && apply_change(pairs, &count, &changes[i]) == 0)
        i++;
    uint32_t set = i == n ? rp_profile_label_set(&store, pairs, count) : RP_IDX_NONE;
    if (pairs != small)
        free(pairs);
    return set < RP_LABEL_SETS_MAX ? set : RP_IDX_NONE;
}

uint32_t rp_labels_set_count(void)
{
    return store_ready ? (uint32_t)store.label_set_count : 1;
}

uint32_t rp_labels_pair_count(uint32_t set)
{
    uint32_t count;
    pairs_of(set, &count);
    return count;
}

void rp_labels_pair(uint32_t set, uint32_t i, const char **key, size_t *key_len,
                    const char **value, size_t *value_len)
{
    uint32_t count;
    const rp_label *pairs = pairs_of(set, &count);
    *key = rp_strtab_get(&store.strings, pairs[i].key, key_len);
    *value = rp_strtab_get(&store.strings, pairs[i].value, value_len);
}

/* --- holds and compaction ------------------------------------------------ */

struct rp_label_hold {
    uint32_t set;
    rp_label_hold *prev, *next;
};

static rp_label_hold *holds;       /* held now, doubly linked */
static rp_label_hold *spare_holds; /* released, kept for the next block */
static rp_profile fresh;           /* the store being built by a compaction */

rp_label_hold *rp_labels_hold(uint32_t set)
{
    rp_label_hold *h = spare_holds;
    if (h)
        spare_holds = h->next;
    else if (!(h = malloc(sizeof(*h))))
        return NULL;
    *h = (rp_label_hold){.set = set, .prev = NULL, .next = holds};
    if (holds)
        holds->prev = h;
    holds = h;
    return h;
}

uint32_t rp_labels_release(rp_label_hold *h)
{
    if (h->prev)
        h->prev->next = h->next;
    else
        holds = h->next;
    if (h->next)
        h->next->prev = h->prev;
    h->next = spare_holds;
    spare_holds = h;
    return h->set;
}

uint32_t rp_labels_carry(uint32_t set)
{
    uint32_t count;
    const rp_label *pairs = pairs_of(set, &count);
    if (!count)
        return 0;
    rp_label *moved = rp_alloc_array(count, sizeof(*moved));
    if (!moved)
        return 0;
    uint32_t i = 0;
    for (; i < count; i++) {
        size_t key_len, value_len;
        const char *key = rp_strtab_get(&store.strings, pairs[i].key, &key_len);
        const char *value = rp_strtab_get(&store.strings, pairs[i].value, &value_len);
        moved[i].key = rp_profile_string(&fresh, key, key_len);
        moved[i].value = rp_profile_string(&fresh, value, value_len);
        if (moved[i].key == RP_IDX_NONE || moved[i].value == RP_IDX_NONE)
            break;
    }
    uint32_t carried = i == count ? rp_profile_label_set(&fresh, moved, count) : RP_IDX_NONE;
    free(moved);
    return carried == RP_IDX_NONE ? 0 : carried; /* out of memory: the labels are lost */
}

int rp_labels_compact_begin(void)
{
    if (!store_ready || rp_profile_init(&fresh, true) != 0)
        return -1;
    for (rp_label_hold *h = holds; h; h = h->next)
        h->set = rp_labels_carry(h->set);
    return 0;
}

void rp_labels_compact_end(void)
{
    rp_profile_free(&store);
    store = fresh;
    memset(&fresh, 0, sizeof(fresh));
}
