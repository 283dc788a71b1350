/*
 * agent/profiles/compaction.h — the label store kept to the sets in use.
 *
 * Owns: compacting the label store (labels.h) so that labels made per
 * request do not pile up: every holder of a set id — threads, the keys of
 * the objects followed, open requests, the tables of every open recording
 * — carries its set over to the compacted store. At each part
 * (RPERF_INTERVAL), and as a recording without parts ends once the store
 * has grown by a few thousand sets since the last compaction.
 *
 * Context: GVL held, on a Ruby thread.
 */
#ifndef RPERF_AGENT_PROFILES_COMPACTION_H
#define RPERF_AGENT_PROFILES_COMPACTION_H

/* The tables held (aggregator.h) and the whole profile's empty (a part
 * was just taken): compacts the store now. */
void rp_compact_labels(void);

/* Holds the tables and compacts the store if it has grown enough. */
void rp_compact_labels_if_grown(void);

#endif
