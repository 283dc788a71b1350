/*
 * agent/control/parts.h — the whole profile in parts (RPERF_INTERVAL).
 *
 * Owns: writing a part every interval — built on a Ruby thread at a
 * safepoint, written by the worker — the tables emptied and the label
 * store compacted (compaction.h) after each. Their count, their pauses
 * and the parts lost are whole.c's, which writes the last one.
 *
 * Context: GVL held, on a Ruby thread, unless said otherwise.
 */
#ifndef RPERF_AGENT_CONTROL_PARTS_H
#define RPERF_AGENT_CONTROL_PARTS_H

/* At start, with RPERF_INTERVAL: registers the job that writes a part. */
void rp_parts_init(void);

/* Worker thread, async-signal-safe: an interval ended. */
void rp_parts_ask(void);

#endif
