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

typedef struct rp_endpoint {
    uint32_t name; /* string id */
    int64_t count, max_ns;
    rp_span_split sum;
    int64_t status[RP_STATUS_CLASSES];
    int64_t *hist; /* RP_HIST_BUCKETS counts, or NULL while count is 0 */
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
    rp_idxset index; /* over endpoints, by name */
    rp_slow_span *slow;
    size_t slow_count, slow_cap;
} rp_requests;

void rp_requests_init(rp_requests *r);
void rp_requests_free(rp_requests *r);

/* The endpoint named `name` (a string id), made when first needed; NULL
 * when out of memory. */
rp_endpoint *rp_requests_endpoint(rp_requests *r, uint32_t name);

/* Adds one span of endpoint `e`. Returns 0 or -1 (out of memory). */
int rp_endpoint_add(rp_endpoint *e, const rp_span_split *s, int status);

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
