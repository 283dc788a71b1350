/*
 * agent/inherit.h — keeping the agent out of child processes.
 *
 * Owns: RPERF_INHERIT=0, i.e. removing this library from LD_PRELOAD so
 * that programs the profiled process starts do not load it, while every
 * other preloaded library stays.
 */
#ifndef RPERF_AGENT_INHERIT_H
#define RPERF_AGENT_INHERIT_H

#include <stddef.h>

/* Main thread at start: rewrites LD_PRELOAD without this library (and
 * unsets it when nothing else is left). */
void rp_inherit_disable(void);

/* The LD_PRELOAD value without entries naming `agent_path` (same file, or
 * same file name). Pure function, for tests: writes into `out`. */
void rp_inherit_strip(const char *preload, const char *agent_path, char *out, size_t size);

#endif
