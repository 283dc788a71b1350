/*
 * agent/requests/spans.h — requests and jobs (spans): Rperf.request, and the Rack,
 * Sidekiq and ActiveJob middlewares through it.
 *
 * Owns: the outermost span open on each fiber (nested ones count once,
 * at the outermost; a fiber-per-request server's requests apart), its
 * measurement at its edges and at fiber switches from the agent's own
 * accounting of the thread — wall clock, the thread's CPU clock
 * (thread_cpu.h), and what the GVL and GC hooks add up per thread
 * (threads.h: blocked, waiting for the GVL, in GC) — so that a 2 ms
 * request is measured exactly whether or not a sample fell in it; and per
 * recording, through endpoints.h, the endpoints' statistics (profile/requests.h) and the K
 * slowest spans of each endpoint and part (RPERF_SLOW_KEEP) among those
 * that are slow — at least RPERF_SLOW_MS, or else among the slowest 1% of
 * their endpoint so far (all of the first 100) — until the writer takes
 * them.
 *
 * Fibers: a thread's time counts for the request of the fiber that ran
 * last among those with one — a fiber without one (an Enumerator's, the
 * fiber scheduler's event loop) works for it; the time a request's fiber
 * is suspended while another's runs counts as blocked (it waits for I/O
 * or a timer through the scheduler, or for its turn).
 *
 * Contexts: everything here runs on a Ruby thread holding the GVL (the
 * Ruby API's calls, the writer, the sampler, the fiber switch and thread
 * end hooks); rp_spans_capture also runs in the RESUMED hook and inside
 * GC (the GC hooks' captures), where it only reads the stack and grows C
 * arrays. The GVL and GC hooks add to the thread's counters. The frames
 * held by open requests, and their fibers, are marked (and so pinned) by
 * their own GC mark function.
 */
#ifndef RPERF_AGENT_SPANS_H
#define RPERF_AGENT_SPANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../profile/profile.h"
#include "../base/recording.h"
#include "../sampling/frame_names.h"
#include "../vm/threads.h"

#define RP_SPAN_NAME_MAX 256

/* At start: K slow spans kept per endpoint and part, and the threshold in
 * ms (0: the K slowest, whatever their time). */
void rp_spans_init(long keep, long slow_ms, bool lines);

/* GVL held: the current fiber of thread `t` enters / leaves a span of
 * endpoint `name`; only its outermost counts. `queued_ns` (CLOCK_REALTIME, 0: none): when the
 * request reached the front of the system (a proxy's X-Request-Start);
 * the span then begins there, the stretch until now its queue time —
 * unless it is in the future or more than RP_SPAN_QUEUE_MAX_NS ago, a
 * clock or header not to be trusted. `status`: the response's (0: none).
 * Returns 0, or -1 when the span could not be kept (out of memory). */
#define RP_SPAN_QUEUE_MAX_NS (3600 * 1000000000LL)
int rp_spans_begin(rp_thread *t, const char *name, size_t len, int64_t queued_ns);
/* `name` (len bytes), when not NULL, is the endpoint the request turned
 * out to be — a router's route, known once the application returned; it
 * replaces the name it began with. */
void rp_spans_end(rp_thread *t, int status, const char *name, size_t len);

/* GVL held (rp_gvl_gc_update / _stop): the fiber switch and thread end
 * hooks on or off — on while requests are recorded. */
void rp_spans_hook(bool on);

/* RESUMED hook (GVL held, on thread `t`): it was blocked off the GVL for
 * `ns` in one go; when that is the longest of its current request so far
 * (and 0.1 ms at least) the request keeps where (the stack's two
 * innermost frames), for its slow span's "blocked_at". Only reads the
 * stack. A fiber's request so names where its thread blocked while it had
 * the thread, not where its fiber was suspended. */
void rp_spans_blocked(const rp_thread *t, int64_t ns);

/* GVL held (the sampler, for a capture with `n` charges on thread `t`):
 * when the thread is inside a span, keeps the sample with it until it
 * ends (it then reaches the tables, labelled RP_LABEL_SPAN=<its id> when
 * it is kept as slow) and returns true; false: capture it as usual. */
struct rp_charge;
bool rp_spans_capture(const rp_thread *t, const struct rp_charge *charges, int n);

/* GVL held, before a profile is built: the samples that requests still
 * open keep go to the tables now, so that none is missing from it (a
 * request whose body is never closed, one that spans a part's end); those
 * requests can no longer be told apart in the tables. */
void rp_spans_spill_open(void);

/* GVL held, in a label compaction (labels.h): the label sets open
 * requests keep (their fiber's while suspended, their held samples') move
 * to the new store. */
void rp_spans_carry_labels(void);

/* GVL held, in a compaction of the frame names (frame_names.h): the names
 * open requests hold (where they blocked longest, their held samples'
 * stacks), renumbered. */
void rp_spans_renumber_frame_names(rp_frame_name_fn *fn);

/* GVL held, at the end of the process: the requests still open end now
 * (no status): a thread stuck in one, a fiber abandoned inside one. At a
 * part's end (rp_spans_take) those open since before the part began do,
 * at a thread's end those of its fibers, and beyond 1,024 open on one
 * thread the oldest. */
void rp_spans_close_open(void);

/* GVL held (the writer): adds recording `id`'s requests since they were
 * last taken to `p` (names interned there), and with `clear` starts
 * afresh (a part). Returns 0 or -1. */
int rp_spans_take(rp_rec_id id, rp_profile *p, bool clear);

/* GVL held, as recording `id` opens: no requests yet. */
void rp_spans_begin_recording(rp_rec_id id);

/* Fork child: the parent's open spans are not this process's. */
void rp_spans_after_fork(void);

#endif
