/*
 * agent/requests/endpoints.h — each recording's table of endpoints.
 *
 * Owns: for each recording (recording.h), the requests and jobs that
 * ended since its writer last took them — per endpoint their count,
 * status classes, latency histogram and time split — and the K slowest of
 * each endpoint kept whole (RPERF_SLOW_MS, else those among the slowest
 * 1% of their endpoint since the recording began); the bound on distinct
 * endpoint names (RP_ENDPOINTS_MAX, the rest counted under
 * RP_ENDPOINT_OTHER). spans.c, which follows requests on threads and
 * fibers, adds each one as it ends; the writer takes the table.
 *
 * Context: GVL held, on a Ruby thread.
 */
#ifndef RPERF_AGENT_REQUESTS_ENDPOINTS_H
#define RPERF_AGENT_REQUESTS_ENDPOINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../profile/profile.h"
#include "../base/recording.h"

/* At start: K slow spans kept per endpoint and part, and the threshold in
 * ms (0: the slowest 1% of the endpoint so far). */
void rp_endpoints_init(long keep, long slow_ms);

/* Recording `id` begins: its tables empty, its endpoints' history too. */
void rp_endpoints_begin_recording(rp_rec_id id);

/* Counts request `s` of endpoint `name` (`len` bytes) for recording `id`.
 * Returns its copy when it is kept as slow (the caller may then set its
 * blocked_at), else NULL. */
rp_slow_span *rp_endpoints_add(rp_rec_id id, const char *name, size_t len, const rp_slow_span *s);

/* The id of string `text` in recording `id`'s table (RP_IDX_NONE: out of
 * memory), for a kept span's blocked_at. */
uint32_t rp_endpoints_string(rp_rec_id id, const char *text, size_t len);

/* Adds recording `id`'s endpoints and slow spans to `p`; with `clear`
 * (a part, or the end), the table then starts empty (the endpoints'
 * history is kept). Returns 0, or -1 when out of memory. */
int rp_endpoints_take(rp_rec_id id, rp_profile *p, bool clear);

/* Fork child: every table empty, the parent's history forgotten. */
void rp_endpoints_after_fork(void);

#endif
