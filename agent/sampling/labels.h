/*
 * agent/sampling/labels.h — the labels a program gives its threads (Rperf.label).
 *
 * Owns: the process's store of label sets. A set is a map of key → value
 * strings, interned once and named by a dense id, 0 being the empty set.
 * A thread carries the id of its current set (rp_thread.label_set),
 * samples carry it through the buffers and tables, and the writer turns it
 * back into pairs. Only touched with the GVL held — sets are made by the
 * Rperf API and read by the writer and snapshots — never by the worker.
 * A fork child keeps the store, so its threads keep their labels.
 *
 * A program may make a new set per request (a request id as a label); in a
 * process that runs for days the store would grow without end. Between
 * parts (RPERF_INTERVAL) it is compacted: a new store keeps only the sets
 * still in use — threads' current sets and those labelled blocks will
 * restore (holds) — renumbered. Without parts, the store is bounded:
 * past RP_LABEL_SETS_BOUND sets or RP_LABEL_TEXT_BYTES of text, new
 * strings are recorded as one.
 */
#ifndef RPERF_AGENT_LABELS_H
#define RPERF_AGENT_LABELS_H

#include <stddef.h>
#include <stdint.h>

/* One key of a change to a set: value NULL deletes the key. */
typedef struct rp_label_change {
    const char *key, *value;
    size_t key_len, value_len;
} rp_label_change;

/* Main thread at start: an empty store. Returns 0 or -1 (out of memory). */
int rp_labels_init(void);

/* GVL held: the id of set `base` with `changes` applied in order (a key
 * set twice keeps its last value). RP_IDX_NONE when out of memory or when
 * the store is full (RP_LABEL_SETS_MAX sets). */
uint32_t rp_labels_merge(uint32_t base, const rp_label_change *changes, size_t n);

/* GVL held: a labelled block keeps the set it will restore in a hold, so
 * that a compaction can renumber it (not on the block's C stack, which a
 * fiber abandoned mid-block frees without running its ensure: such a hold
 * just stays). rp_labels_hold returns NULL when out of memory;
 * rp_labels_release returns the held set, as numbered now. */
typedef struct rp_label_hold rp_label_hold;
rp_label_hold *rp_labels_hold(uint32_t set);
uint32_t rp_labels_release(rp_label_hold *h);

/* GVL held, between parts (no sample buffered or in the tables): starts a
 * new store with the holds' sets carried over. The caller then carries
 * every other set id still in use (the threads' current sets) through
 * rp_labels_carry, and ends with rp_labels_compact_end, which frees the
 * old store. Returns 0, or -1 when out of memory (nothing changed; do not
 * carry or end). */
int rp_labels_compact_begin(void);
uint32_t rp_labels_carry(uint32_t set);
void rp_labels_compact_end(void);

/* Past this many sets, or where a new key or value would take the text
 * of the store's strings past this many bytes, keys and values not seen
 * before are recorded as RP_LABEL_OTHER (labels.c), said once. */
#define RP_LABEL_SETS_BOUND 65536
#define RP_LABEL_TEXT_BYTES ((size_t)16 << 20)
#define RP_LABEL_OTHER "(other: past the label bound)"

/* Every set id is below this, so (set, VM state) fits a 32-bit key. */
#define RP_LABEL_SETS_MAX (UINT32_MAX / 8)

/* GVL held: how many sets the store has (ids are 0 .. count-1). */
uint32_t rp_labels_set_count(void);
/* GVL held: number of pairs of set `set`, and pair `i` of it. The
 * strings stay valid until the next merge. */
uint32_t rp_labels_pair_count(uint32_t set);
void rp_labels_pair(uint32_t set, uint32_t i, const char **key, size_t *key_len,
                    const char **value, size_t *value_len);

#endif
