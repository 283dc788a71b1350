/*
 * agent/sampling/label_aliases.h — what a label's value turned out to be.
 *
 * Owns: the names a label value is written under. A request is labelled
 * when it begins, before the router has matched it: the Rack middleware's
 * `endpoint` label is then the request's path ("GET /products/sku-25-x"),
 * and only at its end is its route known ("GET /products/:sku", which the
 * requests table names it). The middleware records that the value stands
 * for the route, and every profile built after writes the route instead
 * (writer.c), so the Tags tab, `report --by endpoint`, tag filters and
 * pprof labels group one route's requests as `requests` does.
 *
 * Bounded: RP_LABEL_ALIASES_MAX aliases of strings up to
 * RP_LABEL_ALIAS_TEXT_MAX bytes, RP_LABEL_ALIASES_BYTES of text in all;
 * past that a value keeps its own name, and the agent says so once.
 * Context: GVL held (the Rperf API records; the writer reads).
 */
#ifndef RPERF_AGENT_LABEL_ALIASES_H
#define RPERF_AGENT_LABEL_ALIASES_H

#include <stdbool.h>
#include <stddef.h>

#define RP_LABEL_ALIASES_MAX 65536
#define RP_LABEL_ALIAS_TEXT_MAX 1024
#define RP_LABEL_ALIASES_BYTES ((size_t)8 << 20)

/* Label `key`=`from` is written as `key`=`to` from now on (the latest
 * alias of a value wins). Returns false when it was not kept (the bound,
 * memory, a string too long). */
bool rp_label_alias(const char *key, size_t key_len, const char *from, size_t from_len, const char *to,
                    size_t to_len);

/* The name label `key`=`value` is written under: its alias, or NULL. */
const char *rp_label_alias_of(const char *key, size_t key_len, const char *value, size_t value_len,
                              size_t *len);

#endif
