/*
 * agent/control/parts.h — the whole profile in parts.
 *
 * Owns: writing a part every interval (RPERF_INTERVAL) and whenever the
 * stack table nears its bound (RPERF_MAX_STACKS), so that a long, varied
 * run loses no sample to the capped stack — built on a Ruby thread at a
 * safepoint, written by the worker — the tables emptied and the label
 * store compacted (compaction.h) after each. Their count, their pauses
 * and the parts lost are whole.c's, which writes the last one.
 *
 * Context: GVL held, on a Ruby thread, unless said otherwise.
 */
#ifndef RPERF_AGENT_CONTROL_PARTS_H
#define RPERF_AGENT_CONTROL_PARTS_H

/* At start: registers the job that writes a part and asks for one when
 * the stack table fills. */
void rp_parts_init(void);

/* Worker thread, async-signal-safe: an interval ended. */
void rp_parts_ask(void);

#endif
