/*
 * profile/encode/requests_table.h — the requests report (rperf-analyze
 * requests): per endpoint its count, p50 / p90 / p99 / max and how its
 * time split (CPU, GVL wait, blocked, GC), heaviest total first; the
 * slowest spans one by one; or the endpoint table as JSON.
 */
#ifndef RPERF_PROFILE_ENCODE_REQUESTS_TABLE_H
#define RPERF_PROFILE_ENCODE_REQUESTS_TABLE_H

#include <regex.h>
#include <stdbool.h>

#include "../../common/out.h"
#include "../profile.h"

typedef struct rp_requests_opts {
    const regex_t *endpoint; /* only endpoints matching it, or NULL */
    int slowest;             /* list the N slowest spans (0: the endpoint table) */
    bool json;               /* the endpoint table as a JSON array */
} rp_requests_opts;

/* Returns 0 or -1 (out of memory). */
int rp_requests_write(const rp_profile *p, rp_out *out, const rp_requests_opts *o);

#endif
