/*
 * agent/sampling/label_aliases.c — label values written under another
 * name. See label_aliases.h.
 */
#include "label_aliases.h"

#include <string.h>

#include "../../common/strtab.h"
#include "../../common/vec.h"
#include "../base/log.h"

static rp_strtab names;       /* "key\x1fvalue" pairs and the names they go by */
static uint32_t *alias;       /* pair id → name id (RP_IDX_NONE: none) */
static size_t alias_cap;
static size_t aliases;        /* pairs that have an alias */
static bool ready;

/* "key\x1fvalue" into buf, or false when it does not fit. */
static bool pair_text(char *buf, size_t size, const char *key, size_t key_len, const char *value, size_t value_len,
                      size_t *len)
{
    if (key_len + 1 + value_len >= size)
        return false;
    memcpy(buf, key, key_len);
    buf[key_len] = '\x1f';
    memcpy(buf + key_len + 1, value, value_len);
    *len = key_len + 1 + value_len;
    return true;
}

/* Whether a new alias of `len` bytes of text is past the bound; said
 * once. Its own text is counted whole, as if none of it were known. */
static bool past_bound(size_t len)
{
    static bool said;
    bool past = aliases >= RP_LABEL_ALIASES_MAX || names.arena_len + len > RP_LABEL_ALIASES_BYTES;
    if (past && !said) {
        said = true;
        rp_log("label aliases: the bound is reached (%zu aliases, %.1f of %zu MB of text): label values "
               "first aliased from now on keep their own names",
               aliases, (double)names.arena_len / (1 << 20), RP_LABEL_ALIASES_BYTES >> 20);
    }
    return past;
}

bool rp_label_alias(const char *key, size_t key_len, const char *from, size_t from_len, const char *to,
                    size_t to_len)
{
    char pair[2 * RP_LABEL_ALIAS_TEXT_MAX];
    size_t len;
    if (from_len > RP_LABEL_ALIAS_TEXT_MAX || to_len > RP_LABEL_ALIAS_TEXT_MAX ||
        !pair_text(pair, sizeof(pair), key, key_len, from, from_len, &len))
        return false;
    if (!ready) {
        rp_strtab_init(&names);
        ready = true;
    }
    uint32_t id = rp_strtab_find(&names, pair, len);
    bool known = id != RP_IDX_NONE && id < alias_cap && alias[id] != RP_IDX_NONE;
    if (!known && past_bound(len + to_len))
        return false;
    if (id == RP_IDX_NONE)
        id = rp_strtab_intern(&names, pair, len);
    uint32_t name = rp_strtab_intern(&names, to, to_len);
    size_t old_cap = alias_cap;
    if (id == RP_IDX_NONE || name == RP_IDX_NONE || RP_VEC_RESERVE(alias, alias_cap, (size_t)id + 1) != 0)
        return false;
    for (size_t i = old_cap; i < alias_cap; i++)
        alias[i] = RP_IDX_NONE;
    aliases += !known;
    alias[id] = name;
    return true;
}

const char *rp_label_alias_of(const char *key, size_t key_len, const char *value, size_t value_len, size_t *len)
{
    char pair[2 * RP_LABEL_ALIAS_TEXT_MAX];
    size_t pair_len;
    if (!ready || aliases == 0 || value_len > RP_LABEL_ALIAS_TEXT_MAX ||
        !pair_text(pair, sizeof(pair), key, key_len, value, value_len, &pair_len))
        return NULL;
    uint32_t id = rp_strtab_find(&names, pair, pair_len);
    if (id == RP_IDX_NONE || id >= alias_cap || alias[id] == RP_IDX_NONE)
        return NULL;
    return rp_strtab_get(&names, alias[id], len);
}
