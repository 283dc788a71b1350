/*
 * agent/profiles/compaction.h — the agent's stores kept to what is in use.
 *
 * Owns: compacting the stores that grow with the program's code and data
 * while the tables that hold their ids are emptied part after part:
 * - the label store (labels.h), so that labels made per request do not
 *   pile up: every holder of a set id — threads, the keys of the objects
 *   followed, open requests, the tables of every open recording — carries
 *   its set over to the compacted store;
 * - the frame names (frame_names.h), so that code the program evals or
 *   loads and drops stops counting against their bound: every holder of
 *   a name id — every recording's tables, the allocation stacks of
 *   objects still followed (the rest let go of first), the threads' last
 *   stacks, open requests, the capture cache — is renumbered.
 * At each part (RPERF_INTERVAL), and as a recording without parts ends:
 * each store once it has grown enough since its last compaction.
 *
 * Context: GVL held, on a Ruby thread.
 */
#ifndef RPERF_AGENT_PROFILES_COMPACTION_H
#define RPERF_AGENT_PROFILES_COMPACTION_H

/* The tables held (aggregator.h), a part just taken (the whole profile's,
 * or the Rperf API session's): compacts the label store now, the frame
 * names if they have grown. */
void rp_compact_stores(void);

/* Holds the tables and compacts each store that has grown enough. */
void rp_compact_stores_if_grown(void);

#endif
