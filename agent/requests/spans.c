/*
 * agent/requests/spans.c — requests and jobs. See spans.h for what runs where.
 */
#include "spans.h"

#include "endpoints.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../common/clock.h"
#include "../../common/vec.h"
#include "../base/log.h"
#include "../sampling/frame_capture.h"
#include "../sampling/frame_names.h"
#include "../vm/gc_watch.h"
#include "../sampling/gvl_gc.h"
#include "../sampling/labels.h"
#include "../sampling/sample_buf.h"
#include "../sampling/sampler.h"
#include "../vm/thread_cpu.h"

/* A sample taken during a span, kept until it ends (its frames in the
 * span's frames). */
typedef struct span_sample {
    uint32_t frame_offset, label_set;
    uint16_t depth;
    rp_charge charge;
    int64_t time_ns; /* CLOCK_MONOTONIC at the capture */
} span_sample;

/* A span's samples kept at most (frames): beyond, they go to the tables at
 * once, and the span can no longer be told apart there. */
#define SPAN_FRAMES_MAX (1u << 16)

/* Requests open at once on one thread at most (fibers): beyond, the
 * oldest is closed as it is, so that abandoned fibers cannot pile up. */
#define SPANS_OPEN_MAX 1024

/* What the open requests' kept samples may take in all, in the process
 * (their buffers' bytes): without it each thread could keep 1,024 requests
 * of SPAN_FRAMES_MAX frames (about 0.5 GB) — long streaming responses,
 * many fibers. A request whose buffer would grow past it spills (its
 * samples go to the tables as they come), and its buffers are let go. */
#define SPANS_HELD_MAX ((size_t)16 << 20)
static size_t held_bytes; /* GVL held */
static bool said_held_max;

/* What a thread's own accounting adds up (threads.h): its CPU clock, and
 * its time blocked, waiting for the GVL and in GC. */
typedef struct span_time {
    int64_t cpu_ns, blocked_ns, wait_ns, gc_ns;
} span_time;

/* The outermost request open on one fiber, and the samples taken for it
 * since: they reach the tables when it ends, labelled with it
 * (RP_LABEL_SPAN) when it is kept as slow, so that label filters select
 * its own call tree. Its thread's time counts for it while it is its
 * thread's current request; while another fiber's request has the thread,
 * its fiber is suspended (waiting for I/O or a timer through the fiber
 * scheduler, or for its turn), counted as blocked. */
struct rp_open_span {
    VALUE fiber;     /* whose request it is (not marked: Qfalse once found dead) */
    bool fiber_old;  /* it was promoted when last seen alive (read then, never after a GC unseen) */
    uint32_t depth;  /* Rperf.request blocks of that fiber it is inside */
    int64_t mono_ns, real_ns, queue_ns;
    span_time spent;       /* its thread's time while it was the current request */
    int64_t away_since_ns; /* CLOCK_MONOTONIC when another request took the thread */
    int64_t away_ns;       /* time so spent suspended */
    uint32_t label_set;    /* its fiber's labels while suspended (labels.h) */
    /* its longest block off the GVL so far, and where: the method it
     * blocked in and its caller, with their lines (marked while open) */
    int64_t longest_block_ns;
    uint32_t block_frames[2]; /* frame names (frame_names.h) */
    int block_lines[2];
    int block_depth;
    size_t name_len;
    char name[RP_SPAN_NAME_MAX];
    span_sample *samples;
    size_t count, cap;
    uint32_t *frames; /* frame names (frame_names.h) */
    int *lines;
    size_t frame_count, frames_cap, lines_cap;
    size_t held;      /* its buffers' bytes, counted in held_bytes */
    bool spilled; /* its samples went to the tables as they came */
    struct rp_open_span *next_free;
};

/* A thread's requests (rp_thread.spans): those open on its fibers, and the
 * one its time goes to now — the request of the fiber that ran last among
 * those with one: a fiber without a request of its own (an Enumerator's,
 * the fiber scheduler's event loop) works for the request that ran before
 * it. Belongs to one incarnation of the thread record (a record is reused
 * for another thread, renewed in a fork child). */
struct rp_thread_spans {
    uint32_t generation, thread_seq;
    struct rp_open_span **open;
    size_t count, cap;
    struct rp_open_span *current; /* or NULL */
    span_time mark;               /* the thread's accounting when `current` took it */
    struct rp_open_span *free;    /* ended ones, their buffers kept */
};

/* The K slowest spans of one endpoint (index as in the store's requests). */
static uint32_t next_span_number; /* per process: ids are pid << 32 | number */
static uint64_t span_pid;
static bool record_lines;
static bool used;

void rp_spans_begin_recording(rp_rec_id id)
{
    rp_endpoints_begin_recording(id);
}

/* Where request `o` blocked longest, into `buf`: "Kernel#sleep at
 * app.rb:12" — the method and the line that called it (GVL held: reads
 * frame names). Returns its length, 0 if it never blocked. */
static size_t block_place(const struct rp_open_span *o, char *buf, size_t size)
{
    if (o->block_depth <= 0)
        return 0;
    rp_named_frame method = rp_frame_names_get(o->block_frames[0]);
    int at = o->block_depth > 1 ? 1 : 0; /* a C method has no line: its caller's */
    rp_named_frame caller = rp_frame_names_get(o->block_frames[at]);
    bool has_path = strcmp(caller.path, RP_C_METHOD_PATH) != 0;
    int n = has_path ? snprintf(buf, size, "%.*s at %.*s:%d", (int)method.label_len, method.label,
                                (int)caller.path_len, caller.path, o->block_lines[at])
                     : snprintf(buf, size, "%.*s", (int)method.label_len, method.label);
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

/* Adds the span to recording `r`'s table; returns whether it was kept as
 * slow. */
static bool add_span(rp_rec_id r, const struct rp_open_span *o, const rp_slow_span *s)
{
    rp_slow_span *kept = rp_endpoints_add(r, o->name, o->name_len, s);
    char place[512];
    size_t len = kept ? block_place(o, place, sizeof(place)) : 0;
    if (len)
        kept->blocked_at = rp_endpoints_string(r, place, len);
    return kept != NULL;
}

/* A request's latency class (RP_LABEL_LATENCY): a decade of ms. */
static const char *latency_class(int64_t wall_ns)
{
    static const char *const names[] = {"<1ms", "1-10ms", "10-100ms", "100ms-1s", ">=1s"};
    int i = 0;
    for (int64_t bound = 1000000; i < 4 && wall_ns >= bound; bound *= 10)
        i++;
    return names[i];
}

/* The samples the span kept, into the tables. With `wall_ns` (the span
 * ended) they are labelled with its latency class, and with `id` (a slow
 * span's) RP_LABEL_SPAN=id too; the label sets made once per set. */
static void flush_samples(const rp_thread *t, struct rp_open_span *o, int64_t wall_ns, uint64_t id)
{
    char value[RP_SPAN_LABEL_MAX];
    int len = rp_span_label((int64_t)id, value);
    const char *latency = wall_ns ? latency_class(wall_ns) : "";
    rp_label_change changes[2] = {{RP_LABEL_LATENCY, latency, strlen(RP_LABEL_LATENCY), strlen(latency)},
                                  {RP_LABEL_SPAN, value, strlen(RP_LABEL_SPAN), (size_t)len}};
    size_t n = !wall_ns ? 0 : id ? 2 : 1;
    uint32_t from = RP_IDX_NONE, to = 0;
    for (size_t i = 0; i < o->count; i++) {
        const span_sample *s = &o->samples[i];
        if (n && s->label_set != from) {
            from = s->label_set;
            to = rp_labels_merge(from, changes, n);
        }
        rp_sample_buf_append(t->thread_seq, n ? to : s->label_set, o->frames + s->frame_offset,
                             o->lines ? o->lines + s->frame_offset : NULL, s->depth, &s->charge, s->time_ns);
    }
    o->count = o->frame_count = 0;
}

/* --- a thread's open requests --------------------------------------------- */

/* `t`'s accounting now, read on its own thread or (ending a request it
 * is stuck in) on another. */
static span_time thread_time(rp_thread *t)
{
    int64_t cpu = t->thread == rb_thread_current() ? rp_thread_cpu_now(&t->cpu) : rp_thread_cpu_peek(&t->cpu);
    return (span_time){cpu, t->acct_blocked_ns, t->acct_wait_ns, t->acct_gc_ns};
}

static bool spans_belong(const struct rp_thread_spans *ts, const rp_thread *t)
{
    return ts && ts->generation == t->generation && ts->thread_seq == t->thread_seq;
}

/* An ended request's record goes back to its thread for the next one,
 * its buffers with it — unless they grew past what an ordinary request
 * needs (one long request, a burst of fibers), which is given back, as
 * are records past a few kept spare: what a thread holds shrinks back. */
#define SPARE_SPANS 16
#define SPARE_FRAMES 4096

static void free_buffers(struct rp_open_span *o)
{
    free(o->samples);
    free(o->frames);
    free(o->lines);
    o->samples = NULL;
    o->frames = NULL;
    o->lines = NULL;
    o->cap = o->frames_cap = o->lines_cap = 0;
}

static void retire(struct rp_thread_spans *ts, struct rp_open_span *o)
{
    o->count = o->frame_count = 0;
    held_bytes -= o->held; /* a spare's buffers are bounded by SPARE_* */
    o->held = 0;
    if (o->frames_cap > SPARE_FRAMES)
        free_buffers(o);
    size_t spare = 0;
    for (struct rp_open_span *f = ts->free; f && spare < SPARE_SPANS; f = f->next_free)
        spare++;
    if (spare >= SPARE_SPANS) {
        free_buffers(o);
        free(o);
        return;
    }
    o->next_free = ts->free;
    ts->free = o;
}

/* Every open request of `ts` is dropped, its samples with it: a fork
 * child's (the parent's requests are not its own), a reused record's. */
static void drop_open(struct rp_thread_spans *ts)
{
    for (size_t i = 0; i < ts->count; i++)
        retire(ts, ts->open[i]);
    ts->count = 0;
    ts->current = NULL;
}

/* GVL held: `t`'s requests, made on first use (`create`) or renewed when
 * they belong to an earlier incarnation of the record; NULL if none. */
static struct rp_thread_spans *thread_spans(rp_thread *t, bool create)
{
    struct rp_thread_spans *ts = t->spans;
    if (!ts) {
        if (!create || !(ts = t->spans = calloc(1, sizeof(*ts))))
            return NULL;
    } else if (!spans_belong(ts, t)) {
        drop_open(ts);
    }
    ts->generation = t->generation;
    ts->thread_seq = t->thread_seq;
    return ts;
}

static struct rp_open_span *find_open(const struct rp_thread_spans *ts, VALUE fiber)
{
    for (size_t i = 0; i < ts->count; i++)
        if (ts->open[i]->fiber == fiber)
            return ts->open[i];
    return NULL;
}

/* The thread's time from now on counts for `to` (NULL: none): the current
 * request's share so far is added up, and it is suspended from now. The
 * thread's labels are its fiber's: kept while suspended, back with it. */
static void give_thread(rp_thread *t, struct rp_thread_spans *ts, struct rp_open_span *to, int64_t now)
{
    span_time clock = thread_time(t);
    struct rp_open_span *from = ts->current;
    if (from) {
        from->spent.cpu_ns += clock.cpu_ns - ts->mark.cpu_ns;
        from->spent.blocked_ns += clock.blocked_ns - ts->mark.blocked_ns;
        from->spent.wait_ns += clock.wait_ns - ts->mark.wait_ns;
        from->spent.gc_ns += clock.gc_ns - ts->mark.gc_ns;
        from->away_since_ns = now;
        from->label_set = t->label_set;
    }
    if (to && to->away_since_ns) {
        to->away_ns += now - to->away_since_ns;
        to->away_since_ns = 0;
        t->label_set = to->label_set;
    }
    ts->current = to;
    ts->mark = clock;
}

static void end_open(rp_thread *t, struct rp_thread_spans *ts, struct rp_open_span *o, int status);

/* GVL held, on the thread: its requests whose fiber the GC has freed (the
 * program dropped it inside the block) end as they are, with no status. */
static void close_orphans(rp_thread *t, struct rp_thread_spans *ts)
{
    for (size_t i = ts->count; i-- > 0;)
        if (ts->open[i]->fiber == Qfalse)
            end_open(t, ts, ts->open[i], 0);
}

/* Request `o` is of endpoint `name` (cut at RP_SPAN_NAME_MAX bytes). */
static void name_span(struct rp_open_span *o, const char *name, size_t len)
{
    o->name_len = len < RP_SPAN_NAME_MAX ? len : RP_SPAN_NAME_MAX;
    memcpy(o->name, name, o->name_len);
}

/* A new request of endpoint `name` on `fiber`; NULL when out of memory. */
static struct rp_open_span *open_span(rp_thread *t, struct rp_thread_spans *ts, VALUE fiber,
                                      const char *name, size_t len, int64_t queued_ns)
{
    if (ts->count == SPANS_OPEN_MAX) {
        struct rp_open_span *oldest = ts->open[0];
        for (size_t i = 1; i < ts->count; i++)
            if (ts->open[i]->mono_ns < oldest->mono_ns)
                oldest = ts->open[i];
        end_open(t, ts, oldest, 0);
    }
    if (RP_VEC_RESERVE(ts->open, ts->cap, ts->count + 1) != 0)
        return NULL;
    struct rp_open_span *o = ts->free;
    if (o)
        ts->free = o->next_free;
    else if (!(o = calloc(1, sizeof(*o))))
        return NULL;
    ts->open[ts->count++] = o;
    int64_t now = rp_monotonic_ns();
    o->fiber = fiber;
    o->fiber_old = RB_OBJ_PROMOTED_RAW(fiber); /* the current fiber: alive */
    o->depth = 1;
    o->count = o->frame_count = 0;
    o->spilled = false;
    o->spent = (span_time){0};
    o->away_since_ns = o->away_ns = 0;
    o->longest_block_ns = 0;
    o->block_depth = 0;
    name_span(o, name, len);
    o->real_ns = rp_clock_ns(CLOCK_REALTIME);
    int64_t queue = queued_ns ? o->real_ns - queued_ns : 0;
    o->queue_ns = queue > 0 && queue <= RP_SPAN_QUEUE_MAX_NS ? queue : 0;
    o->real_ns -= o->queue_ns;
    o->mono_ns = now - o->queue_ns;
    give_thread(t, ts, o, now);
    return o;
}

int rp_spans_begin(rp_thread *t, const char *name, size_t len, int64_t queued_ns)
{
    struct rp_thread_spans *ts = thread_spans(t, true);
    if (!ts)
        return -1;
    if (!used) {
        used = true; /* from now on the GVL hooks count blocked and wait time */
        static const rp_gvl_gc_requests follow = {rp_spans_hook, rp_spans_blocked};
        rp_gvl_gc_follow_requests(&follow);
    }
    close_orphans(t, ts);
    VALUE fiber = rb_fiber_current();
    struct rp_open_span *o = find_open(ts, fiber);
    if (o) {
        o->depth++; /* nested: only the outermost counts */
        return 0;
    }
    return open_span(t, ts, fiber, name, len, queued_ns) ? 0 : -1;
}

/* Request `o` of thread `t` ends, with `status` (0: none), and leaves the
 * thread's open requests. */
static void end_open(rp_thread *t, struct rp_thread_spans *ts, struct rp_open_span *o, int status)
{
    int64_t now = rp_monotonic_ns();
    if (ts->current == o)
        give_thread(t, ts, NULL, now);
    o->away_ns += now - o->away_since_ns;
    int64_t wall = now - o->mono_ns, gc = o->spent.gc_ns;
    /* the CPU clock ticks apart from the monotonic one: not more than the
     * request's time in the application (a 0.1 ms request at "100.1%") */
    int64_t cpu = o->spent.cpu_ns - gc, most = wall - o->queue_ns - gc;
    cpu = cpu < most ? cpu : most;
    rp_slow_span s = {
        .start_ns = o->real_ns,
        .status = status,
        .thread_seq = t->thread_seq,
        .split = {.wall_ns = wall,
                  .cpu_ns = cpu > 0 ? cpu : 0,
                  .gvl_wait_ns = o->spent.wait_ns,
                  .blocked_ns = o->spent.blocked_ns + o->away_ns,
                  .gc_ns = gc,
                  .queue_ns = o->queue_ns},
        .longest_block_ns = o->longest_block_ns,
        .blocked_at = RP_IDX_NONE,
    };
    bool slow = false;
    uint64_t id = span_pid << 32 | ++next_span_number;
    s.span_id = (int64_t)id;
    for (int r = 0; r < RP_RECORDINGS; r++)
        if (atomic_load_explicit(&rp_recording_get((rp_rec_id)r)->accepting, memory_order_relaxed))
            slow |= add_span((rp_rec_id)r, o, &s);
    if (!o->spilled)
        flush_samples(t, o, s.split.wall_ns > 0 ? s.split.wall_ns : 1, slow ? id : 0);
    for (size_t i = 0; i < ts->count; i++)
        if (ts->open[i] == o) {
            ts->open[i] = ts->open[--ts->count];
            break;
        }
    retire(ts, o);
}

void rp_spans_end(rp_thread *t, int status, const char *name, size_t len)
{
    struct rp_thread_spans *ts = thread_spans(t, false);
    struct rp_open_span *o = ts ? find_open(ts, rb_fiber_current()) : NULL;
    if (!o || --o->depth != 0)
        return;
    if (name)
        name_span(o, name, len);
    end_open(t, ts, o, status);
}

/* Fiber switch hook (GVL held, on the thread, the new fiber current): a
 * fiber with a request of its own takes its thread's time. */
static void on_fiber_switch(rb_event_flag_t event, VALUE data, VALUE self, ID mid, VALUE klass)
{
    (void)event, (void)data, (void)self, (void)mid, (void)klass;
    rp_thread *t = rp_threads_find(rb_thread_current());
    struct rp_thread_spans *ts = t ? t->spans : NULL;
    if (!spans_belong(ts, t) || ts->count == 0)
        return;
    close_orphans(t, ts);
    struct rp_open_span *o = find_open(ts, rb_fiber_current());
    if (o)
        o->fiber_old = RB_OBJ_PROMOTED_RAW(o->fiber); /* current: alive, maybe promoted since */
    if (o && o != ts->current)
        give_thread(t, ts, o, rp_monotonic_ns());
}

/* Thread end hook (GVL held, on the ending thread): the requests its
 * fibers left open (abandoned inside one) end with it. */
static void on_thread_end(rb_event_flag_t event, VALUE data, VALUE self, ID mid, VALUE klass)
{
    (void)event, (void)data, (void)self, (void)mid, (void)klass;
    rp_thread *t = rp_threads_find(rb_thread_current());
    struct rp_thread_spans *ts = t ? t->spans : NULL;
    while (spans_belong(ts, t) && ts->count > 0)
        end_open(t, ts, ts->open[ts->count - 1], 0);
}

static bool hooked;

void rp_spans_hook(bool on)
{
    if (on && !hooked) {
        rb_add_event_hook(on_fiber_switch, RUBY_EVENT_FIBER_SWITCH, Qnil);
        rb_add_event_hook(on_thread_end, RUBY_EVENT_THREAD_END, Qnil);
    } else if (!on && hooked) {
        rb_remove_event_hook(on_fiber_switch);
        rb_remove_event_hook(on_thread_end);
    }
    hooked = on;
}

/* A block shorter than this (a system call's own release of the GVL) is
 * not a wait worth naming. */
#define BLOCK_NAMED_NS 100000

void rp_spans_blocked(const rp_thread *t, int64_t ns)
{
    const struct rp_thread_spans *ts = t->spans;
    struct rp_open_span *o = spans_belong(ts, t) ? ts->current : NULL;
    if (!o || ns < BLOCK_NAMED_NS || ns <= o->longest_block_ns)
        return;
    int depth = rp_frame_capture(0, 2, o->block_frames, o->block_lines);
    if (depth <= 0)
        return;
    o->block_depth = depth;
    o->longest_block_ns = ns;
}

/* The samples kept so far go to the tables, and the rest as they come:
 * its buffers are not needed any more. */
static void spill(const rp_thread *t, struct rp_open_span *o)
{
    flush_samples(t, o, 0, 0);
    o->spilled = true;
    o->count = o->frame_count = 0;
    held_bytes -= o->held;
    o->held = 0;
    free_buffers(o);
}

static size_t buffer_bytes(const struct rp_open_span *o)
{
    return o->cap * sizeof(*o->samples) + o->frames_cap * sizeof(*o->frames) + o->lines_cap * sizeof(*o->lines);
}

/* After its buffers were made room in: false when they grew the open
 * requests' past SPANS_HELD_MAX (said once). */
static bool count_held(struct rp_open_span *o)
{
    size_t now = buffer_bytes(o);
    if (now == o->held)
        return true;
    held_bytes += now - o->held;
    o->held = now;
    if (held_bytes <= SPANS_HELD_MAX)
        return true;
    if (!said_held_max) {
        said_held_max = true;
        rp_log("requests: the open requests' kept samples reached %zu MB; the samples of those that need "
               "more go to the profile as they come (a request's own stacks are kept for the slowest only "
               "where it was under that)", SPANS_HELD_MAX >> 20);
    }
    return false;
}

bool rp_spans_capture(const rp_thread *t, const rp_charge *charges, int n)
{
    const struct rp_thread_spans *ts = t->spans;
    struct rp_open_span *o = spans_belong(ts, t) ? ts->current : NULL;
    if (!o || o->spilled)
        return false;
    if (o->frame_count + RP_STACK_MAX > SPAN_FRAMES_MAX ||
        RP_VEC_RESERVE(o->frames, o->frames_cap, o->frame_count + RP_STACK_MAX) != 0 ||
        (record_lines && RP_VEC_RESERVE(o->lines, o->lines_cap, o->frame_count + RP_STACK_MAX) != 0) ||
        RP_VEC_RESERVE(o->samples, o->cap, o->count + (size_t)n) != 0 || !count_held(o)) {
        spill(t, o);
        return false;
    }
    int depth = rp_frame_capture(0, RP_STACK_MAX, o->frames + o->frame_count,
                                 record_lines ? o->lines + o->frame_count : NULL);
    if (depth <= 0)
        return false;
    int64_t now = rp_monotonic_ns();
    for (int i = 0; i < n; i++)
        if (charges[i].weight > 0)
            o->samples[o->count++] = (span_sample){(uint32_t)o->frame_count, t->label_set, (uint16_t)depth,
                                                   charges[i], now};
    o->frame_count += (size_t)depth;
    return true;
}

/* Calls fn on each request open on any thread, with its thread's. */
typedef void open_fn(rp_thread *t, struct rp_thread_spans *ts, struct rp_open_span *o);

static void each_open_of(rp_thread *t, void *fn)
{
    struct rp_thread_spans *ts = t->spans;
    /* backwards: fn may end the request, moving the last into its slot */
    for (size_t i = spans_belong(ts, t) ? ts->count : 0; i-- > 0;)
        (*(open_fn **)fn)(t, ts, ts->open[i]);
}

static void each_open(open_fn *fn)
{
    rp_threads_each(each_open_of, &fn);
}

static void spill_open(rp_thread *t, struct rp_thread_spans *ts, struct rp_open_span *o)
{
    (void)ts;
    if (!o->spilled)
        spill(t, o);
}

void rp_spans_spill_open(void)
{
    each_open(spill_open);
}

static void carry_open(rp_thread *t, struct rp_thread_spans *ts, struct rp_open_span *o)
{
    (void)t, (void)ts;
    o->label_set = rp_labels_carry(o->label_set);
    for (size_t i = 0; i < o->count; i++)
        o->samples[i].label_set = rp_labels_carry(o->samples[i].label_set);
}

void rp_spans_carry_labels(void)
{
    each_open(carry_open);
}

/* The compaction's renumbering function (one at a time: the GVL). */
static rp_frame_name_fn *renumbering;

static void renumber_open(rp_thread *t, struct rp_thread_spans *ts, struct rp_open_span *o)
{
    (void)t, (void)ts;
    for (int i = 0; i < o->block_depth && i < 2; i++)
        o->block_frames[i] = renumbering(o->block_frames[i]);
    for (size_t i = 0; i < o->frame_count; i++)
        o->frames[i] = renumbering(o->frames[i]);
}

void rp_spans_renumber_frame_names(rp_frame_name_fn *fn)
{
    renumbering = fn;
    each_open(renumber_open);
    renumbering = NULL;
}

/* gc_watch.h watcher — inside GC, at the end of a marking, before the
 * sweep: a request whose fiber the marking did not reach (the program
 * dropped it inside the block) lets go of it, so that no new fiber taking
 * its address takes the request over; the request ends on its thread's
 * next fiber switch or request (close_orphans), at the thread's end or at
 * the part's. Open requests do not keep their fibers alive — except where
 * mark bits cannot be read: then every open request lets go of its fiber
 * once, and from then on fibers are marked (mark_fibers). After GCs the
 * hook did not see (another Ractor's thread ran them), the requests whose
 * fiber they could have freed (a young one; any, after a major GC) let go
 * of it too — young as it was when last seen alive: such a fiber may be
 * gone, its page with it, and nothing of it is read (promotion only
 * grows, so a fiber old then is old now, and only a major GC frees it). */
static bool marks_unknown, marks_missed;

static void orphan_dead(rp_thread *t, struct rp_thread_spans *ts, struct rp_open_span *o)
{
    (void)t, (void)ts;
    bool may_have_died = marks_unknown || (marks_missed && (rp_gc_watch_missed_major() || !o->fiber_old));
    if (o->fiber != Qfalse && (may_have_died || !rp_gc_watch_marked(o->fiber)))
        o->fiber = Qfalse;
}

static void at_marking_end(bool major, rp_gc_marks marks)
{
    (void)major;
    marks_unknown = marks == RP_MARKS_UNREADABLE;
    marks_missed = marks == RP_MARKS_MISSED;
    each_open(orphan_dead);
}

/* GVL held, inside GC, marking: only where mark bits cannot be read. */
static void mark_fiber(rp_thread *t, struct rp_thread_spans *ts, struct rp_open_span *o)
{
    (void)t, (void)ts;
    if (o->fiber != Qfalse)
        rb_gc_mark(o->fiber);
}

static void mark_fibers(void *unused)
{
    (void)unused;
    if (marks_unknown)
        each_open(mark_fiber);
}

/* GVL held, inside GC, after objects moved. */
static void relocate_open(rp_thread *t, struct rp_thread_spans *ts, struct rp_open_span *o)
{
    (void)t, (void)ts;
    if (o->fiber != Qfalse)
        o->fiber = rb_gc_location(o->fiber);
}

static void relocate_spans(void *unused)
{
    (void)unused;
    each_open(relocate_open);
}

static const rb_data_type_t compact_type = {
    .wrap_struct_name = "rperf_agent_spans",
    .function = {.dmark = mark_fibers, .dcompact = relocate_spans},
};

static VALUE gc_object = Qnil;

/* Ends request `o` now, from the caller's thread: a thread off the GVL
 * since it released it counts that time as blocked (its own resume would
 * add it later). */
static void close_open(rp_thread *t, struct rp_thread_spans *ts, struct rp_open_span *o)
{
    int64_t pending = t->suspended_ns ? rp_monotonic_ns() - t->suspended_ns : 0;
    t->acct_blocked_ns += pending;
    end_open(t, ts, o, 0);
    t->acct_blocked_ns -= pending;
}

void rp_spans_close_open(void)
{
    each_open(close_open);
}

/* A request still open at the end of a part that had begun before the
 * part did (a thread stuck in it, a fiber abandoned inside it) is closed
 * as it is, counted with no status, so that it is neither lost nor kept
 * open forever; its fiber then leaves it. */
static int64_t part_start_ns;

static void close_stale(rp_thread *t, struct rp_thread_spans *ts, struct rp_open_span *o)
{
    if (o->mono_ns < part_start_ns)
        close_open(t, ts, o);
}

int rp_spans_take(rp_rec_id id, rp_profile *p, bool clear)
{
    if (clear && id == RP_REC_WHOLE) {
        each_open(close_stale);
        part_start_ns = rp_monotonic_ns();
    }
    return rp_endpoints_take(id, p, clear);
}

static void forget_open(rp_thread *t, void *unused)
{
    (void)unused;
    if (t->spans)
        drop_open(t->spans);
}

void rp_spans_after_fork(void)
{
    rp_endpoints_after_fork();
    rp_threads_each(forget_open, NULL); /* the parent's requests are its own */
    span_pid = (uint64_t)getpid();
}

void rp_spans_init(long k, long ms, bool lines)
{
    rp_endpoints_init(k, ms);
    record_lines = lines;
    span_pid = (uint64_t)getpid();
    marks_unknown = !rp_gc_watch_marks_known();
    rp_gc_watch_at_marking_end(at_marking_end);
    rp_sampler_set_keep_capture(rp_spans_capture);
    if (gc_object == Qnil) {
        /* Ruby marks and updates a data object only when it has data */
        gc_object = rb_data_typed_object_wrap(0, &record_lines, &compact_type);
        rb_gc_register_address(&gc_object);
    }
}
