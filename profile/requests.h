/*
 * profile/requests.h — requests and jobs (spans) of a profile.
 *
 * Owns: per endpoint (the Rack middleware's endpoint, a job's class, the
 * name given to Rperf.request), the count of its spans, their wall time
 * and how their threads spent it — CPU, waiting for the GVL, blocked off
 * it (I/O, sleep), GC — with how long they queued before it, their
 * longest, their status classes, and a latency histogram of log buckets
 * 2% wide (percentiles within 1%); and the slowest spans one by one, with
 * their own split and where each blocked longest. Histograms of
 * several processes or parts add up. Names are string ids of the profile
 * the set belongs to.
 */
#ifndef RPERF_PROFILE_REQUESTS_H
#define RPERF_PROFILE_REQUESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/idxset.h"

/* Bucket 0: under 1 µs; bucket b >= 1: [1 µs × 1.02^(b-1), 1 µs × 1.02^b);
 * the last one holds everything from about 20 minutes on. */
#define RP_HIST_BUCKETS 1100
#define RP_HIST_BASE 1.02

/* Status classes: 1xx..5xx, and "other" (no status, or outside 100..599). */
#define RP_STATUS_CLASSES 6

/* What a span's thread did during it, in ns; queue_ns, part of wall_ns,
 * is the time before the application got the request (from a front
 * proxy's X-Request-Start: waiting in the server, for a worker, for the
 * GVL), which the thread's own split does not cover. */
typedef struct rp_span_split {
    int64_t wall_ns, cpu_ns, gvl_wait_ns, blocked_ns, gc_ns, queue_ns;
} rp_span_split;

/* The rest of a split's wall time, none of its states: its thread held
 * the GVL and was not on a core — the OS ran something else (more
 * runnable threads than cores). 0 when the parts add up to more. */
int64_t rp_split_other_ns(const rp_span_split *s);

/* One bucket of a histogram that holds any spans. */
typedef struct rp_hist_cell {
    uint32_t bucket;
    int64_t count;
} rp_hist_cell;

typedef struct rp_endpoint {
    uint32_t name; /* string id */
    int64_t count, max_ns;
    rp_span_split sum;
    int64_t status[RP_STATUS_CLASSES];
    /* The histogram's buckets that hold spans, in bucket order: sparse,
     * as an endpoint's spans fill a few dozen of the buckets (an endpoint
     * seen once takes one cell, not RP_HIST_BUCKETS). */
    rp_hist_cell *hist;
    uint32_t hist_len, hist_cap;
} rp_endpoint;

typedef struct rp_slow_span {
    uint32_t endpoint;   /* string id */
    int64_t start_ns;    /* CLOCK_REALTIME */
    int64_t status;      /* 0: none */
    int64_t thread_seq;
    int64_t span_id;     /* its process id << 32 | its number there (0: none) */
    rp_span_split split;
    /* Its longest time blocked off the GVL in one go, and where: the
     * method it blocked in and the line that called it (a string id;
     * RP_IDX_NONE when it never blocked). */
    int64_t longest_block_ns;
    uint32_t blocked_at;
} rp_slow_span;

typedef struct rp_requests {
    rp_endpoint *endpoints;
    size_t count, cap;
    /* How many more endpoint names the recording saw than it kept (about:
     * the agent keeps RP_ENDPOINTS_MAX per part, and counts the rest's
     * requests under RP_ENDPOINT_OTHER). Summed over parts and processes. */
    int64_t folded_names;
    rp_idxset index; /* over endpoints, by name */
    rp_slow_span *slow;
    size_t slow_count, slow_cap;
} rp_requests;

/* The agent's bound on endpoints per recording and part, and the name
 * under which the requests of endpoints past it are counted. */
#define RP_ENDPOINTS_MAX 1000
#define RP_ENDPOINT_OTHER "(other endpoints)"

void rp_requests_init(rp_requests *r);
void rp_requests_free(rp_requests *r);

/* The endpoint named `name` (a string id), made when first needed; NULL
 * when out of memory. */
rp_endpoint *rp_requests_endpoint(rp_requests *r, uint32_t name);
/* The endpoint named `name` if there is one, else NULL. */
rp_endpoint *rp_requests_find(const rp_requests *r, uint32_t name);

/* Adds one span of endpoint `e`. Returns 0 or -1 (out of memory). */
int rp_endpoint_add(rp_endpoint *e, const rp_span_split *s, int status);

/* Adds `n` spans to bucket `b` (< RP_HIST_BUCKETS) of the endpoint's
 * histogram. Returns 0 or -1 (out of memory). */
int rp_hist_add(rp_endpoint *e, int b, int64_t n);
/* The spans in bucket `b`. */
int64_t rp_hist_count(const rp_endpoint *e, int b);
/* Frees what the endpoint holds (its histogram). */
void rp_endpoint_free(rp_endpoint *e);

/* Adds `src` (its counts and histogram) to `dst`. */
int rp_endpoint_merge(rp_endpoint *dst, const rp_endpoint *src);

/* Keeps a slow span. Returns 0 or -1. */
int rp_requests_add_slow(rp_requests *r, const rp_slow_span *s);

/* The value of RP_LABEL_SPAN that span `id`'s samples carry, into `buf`:
 * "PID.N", unique in a session of many processes ("N" without a process
 * id). Returns its length. */
#define RP_SPAN_LABEL_MAX 24
int rp_span_label(int64_t id, char buf[RP_SPAN_LABEL_MAX]);

int rp_hist_bucket(int64_t ns);
/* The geometric middle of bucket `b`, in ns. */
double rp_hist_value(int b);
/* The `q`-quantile (0..1) of the endpoint's spans, in ns (0 without any). */
double rp_endpoint_quantile(const rp_endpoint *e, double q);

int rp_status_class(int status);
extern const char *const rp_status_class_names[RP_STATUS_CLASSES];

#endif
