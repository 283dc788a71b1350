/*
 * agent/profiles/writer.c — building and writing the profile. See writer.h.
 *
 * Contexts:
 * - rp_writer_build runs on a Ruby thread holding the GVL, either at the
 *   end of the profile (at_exit end proc, exit!, exec) once the worker has
 *   stopped, or while it runs — a part (RPERF_INTERVAL), Rperf.snapshot,
 *   start, stop — with the tables held (rp_aggregator_hold), so the worker
 *   waits. Frames are named from the agent's own name store
 *   (frame_names.h), with no Ruby call; it must not release the GVL.
 * - rp_writer_save calls no Ruby: the worker thread writes parts with it,
 *   a Ruby thread the last profile (and a part the worker had no room
 *   for, possibly while the worker writes another).
 */
#include "writer.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../profile/profile_write.h"
#include "../../profile/schema.h"
#include "../sampling/aggregator.h"
#include "../sampling/worker.h"
#include "../sampling/frame_names.h"
#include "../allocations/allocations.h"
#include "../sampling/label_aliases.h"
#include "../requests/spans.h"
#include "../sampling/labels.h"
#include "../base/log.h"
#include "procstats.h"
#include "../vm/ractors.h"
#include "../base/ruby_api.h"
#include "../../common/hash.h"
#include "../../common/idxset.h"
#include "../../common/vec.h"

/* The profile's frame for the agent's frame `i`: its name (frame_names.h)
 * with the line, and the method's first line when lines are recorded. */
static uint32_t resolve_frame(rp_profile *p, const rp_aggregate *agg, size_t i)
{
    rp_named_frame name = rp_frame_names_get(agg->frames[i]);
    uint32_t path = rp_profile_string(p, name.path, name.path_len);
    uint32_t label = rp_profile_string(p, name.label, name.label_len);
    uint32_t line = agg->lines[i];
    if (path == RP_IDX_NONE || label == RP_IDX_NONE)
        return RP_IDX_NONE;
    return rp_profile_line_frame(p, path, label, line, line ? name.first_line : 0);
}

/* Frame id of the agent → frame id of the profile. */
static uint32_t *resolve_frames(rp_profile *p, const rp_aggregate *agg)
{
    uint32_t *map = rp_calloc_array(agg->frame_count, sizeof(uint32_t));
    if (!map)
        return NULL;
    for (size_t i = 0; i < agg->frame_count; i++) {
        map[i] = resolve_frame(p, agg, i);
        if (map[i] == RP_IDX_NONE) {
            free(map);
            return NULL;
        }
    }
    return map;
}

/* Prism's compiler evaluates each negative integer literal of the code it
 * compiles by calling Integer#-@ (prism_compile.c, parse_integer_value).
 * Compiling is C code without safepoints, so ticks that arrive while a file
 * is compiled are served at the first safepoint after them: the return of
 * such a call. That sample's weight is the compiler's work, done by the C
 * method that compiles (require, load, eval ...), which is the frame below:
 * the call is left out of the stack. Ruby code calling -@ has a Ruby frame
 * below it and keeps it. */
#define COMPILER_CALL_PATH "<internal:numeric>"
#define COMPILER_CALL_LABEL "Integer#-@"

/* The compiler's call, recognised by its frame and its caller's. */
typedef struct compiler_call {
    uint32_t path, label, c_method_path; /* string ids */
} compiler_call;

/* How many leaf frames of a stack (profile frame ids, leaf first) to leave
 * out: 1 when the leaf is the compiler's call of Integer#-@. */
static uint32_t compiler_frames(const rp_profile *p, const compiler_call *cc, const uint32_t *ids,
                                uint32_t depth)
{
    if (depth < 2)
        return 0;
    const rp_frame *leaf = &p->frames[ids[0]], *caller = &p->frames[ids[1]];
    return leaf->path == cc->path && leaf->label == cc->label &&
                   caller->path == cc->c_method_path
               ? 1
               : 0;
}

/* Label sets of the output profile for each (thread labels, VM state)
 * key of the tables, made when first needed. Only the keys the tables use
 * are looked at, however many sets the label store holds (a set per
 * request id can make it large): a snapshot costs what its samples cost. */
typedef struct composed_key {
    uint32_t key, set; /* table key → label set of the output, or RP_IDX_NONE */
} composed_key;

typedef struct label_composer {
    rp_profile *p;
    bool alloc_keys;             /* keys are allocations.h's (labels, class) */
    uint32_t pid_key, pid_value; /* RP_IDX_NONE without %pid */
    uint32_t set_limit;          /* label store sets when composing began */
    composed_key *entries;
    size_t count, capacity;
    rp_idxset index;             /* over entries, by key */
} label_composer;

static int composer_init(label_composer *c, rp_profile *p, bool label_pid, bool alloc_keys)
{
    char pid[24];
    snprintf(pid, sizeof(pid), "%ld", (long)getpid());
    *c = (label_composer){.p = p, .alloc_keys = alloc_keys, .set_limit = rp_labels_set_count()};
    rp_idxset_init(&c->index);
    c->pid_key = label_pid ? rp_profile_cstring(p, RP_LABEL_PID) : RP_IDX_NONE;
    c->pid_value = label_pid ? rp_profile_cstring(p, pid) : RP_IDX_NONE;
    return label_pid && (c->pid_key == RP_IDX_NONE || c->pid_value == RP_IDX_NONE) ? -1 : 0;
}

static void composer_free(label_composer *c)
{
    rp_idxset_free(&c->index);
    free(c->entries);
}

/* The thread's labels first, then the agent's own (`own`: the VM state's
 * or the class's, or none), which win a clash. */
static uint32_t compose(label_composer *c, uint32_t user_set, const rp_label *own)
{
    uint32_t n_user = rp_labels_pair_count(user_set), n = 0;
    rp_label small[16] = {{0, 0}};
    rp_label *pairs = n_user + 2 <= 16 ? small : rp_alloc_array((size_t)n_user + 2, sizeof(*pairs));
    if (!pairs)
        return RP_IDX_NONE;
    for (uint32_t i = 0; i < n_user; i++) {
        const char *key, *value;
        size_t key_len, value_len;
        rp_labels_pair(user_set, i, &key, &key_len, &value, &value_len);
        size_t alias_len;
        const char *alias = rp_label_alias_of(key, key_len, value, value_len, &alias_len);
        if (alias) { /* what the value turned out to be: a request's route */
            value = alias;
            value_len = alias_len;
        }
        pairs[n++] = (rp_label){rp_profile_string(c->p, key, key_len),
                                rp_profile_string(c->p, value, value_len)};
    }
    if (own)
        pairs[n++] = *own;
    if (c->pid_key != RP_IDX_NONE)
        pairs[n++] = (rp_label){c->pid_key, c->pid_value};
    uint32_t set = RP_IDX_NONE;
    bool interned = true;
    for (uint32_t i = 0; i < n; i++)
        interned = interned && pairs[i].key != RP_IDX_NONE && pairs[i].value != RP_IDX_NONE;
    if (interned)
        set = rp_profile_label_set(c->p, pairs, n);
    if (pairs != small)
        free(pairs);
    return set;
}

typedef struct key_lookup {
    const label_composer *c;
    uint32_t key;
} key_lookup;

static bool same_key(const void *ctx, uint32_t index)
{
    const key_lookup *l = ctx;
    return l->c->entries[index].key == l->key;
}

/* A table key: the thread's labels, and what the agent's own label is
 * made of — the VM state (rp_sample_key), or the allocated object's class
 * (allocations.h). */
typedef struct table_key {
    uint32_t user_set;
    rp_vm_state state;
    uint32_t class_id;
} table_key;

static table_key split_key(const label_composer *c, uint32_t key)
{
    table_key k = {0};
    if (c->alloc_keys)
        rp_allocs_key_split(key, &k.user_set, &k.class_id);
    else
        rp_sample_key_split(key, &k.user_set, &k.state);
    return k;
}

/* The agent's own label of a key, if it has one (naming a class may call
 * Ruby: only once the key is not found composed). */
static bool own_label(label_composer *c, const table_key *k, rp_label *own)
{
    if (c->alloc_keys) {
        char name[256];
        *own = (rp_label){rp_profile_cstring(c->p, RP_LABEL_CLASS),
                          rp_profile_cstring(c->p, rp_allocs_class_name(k->class_id, name, sizeof(name)))};
        return true;
    }
    const rp_vm_state_label *vm = &rp_vm_state_labels[k->state];
    if (vm->key)
        *own = (rp_label){rp_profile_cstring(c->p, vm->key), rp_profile_cstring(c->p, vm->value)};
    return vm->key != NULL;
}

/* The output label set of a table key. */
static uint32_t label_set_of(label_composer *c, uint32_t key)
{
    table_key k = split_key(c, key);
    rp_label own;
    if (k.user_set >= c->set_limit) /* a set made after composing began: none is */
        return RP_IDX_NONE;
    uint64_t hash = rp_hash_mix64(key);
    key_lookup lookup = {c, key};
    uint32_t found = rp_idxset_find(&c->index, hash, same_key, &lookup);
    if (found != RP_IDX_NONE)
        return c->entries[found].set;
    bool has_own = own_label(c, &k, &own);
    uint32_t set = compose(c, k.user_set, has_own ? &own : NULL);
    if (set == RP_IDX_NONE || c->count >= RP_IDX_NONE ||
        rp_vec_reserve((void **)&c->entries, &c->capacity, c->count + 1, sizeof(*c->entries)) != 0 ||
        rp_idxset_insert(&c->index, hash, (uint32_t)c->count) != 0)
        return RP_IDX_NONE;
    c->entries[c->count++] = (composed_key){key, set};
    return set;
}

static uint32_t *map_stacks(rp_profile *p, const rp_aggregate *agg, const uint32_t *frame_map)
{
    uint32_t ids[RP_STACK_MAX];
    compiler_call cc = {rp_profile_cstring(p, COMPILER_CALL_PATH),
                        rp_profile_cstring(p, COMPILER_CALL_LABEL),
                        rp_profile_cstring(p, RP_C_METHOD_PATH)};
    /* Sized at once: grown by doubling, the copy of a part's 100,000
     * stacks would hold two arrays of them at each step. */
    uint32_t *stack_map = rp_stack_table_reserve(&p->stacks, agg->stacks.count, agg->stacks.pool_len) == 0
                              ? rp_calloc_array(agg->stacks.count, sizeof(uint32_t))
                              : NULL;
    if (!stack_map)
        return NULL;
    for (size_t s = 0; s < agg->stacks.count; s++) {
        uint32_t depth;
        const uint32_t *frames = rp_stack_table_get(&agg->stacks, (uint32_t)s, &depth);
        for (uint32_t d = 0; d < depth; d++)
            ids[d] = frame_map[frames[d]];
        uint32_t skip = compiler_frames(p, &cc, ids, depth);
        stack_map[s] = rp_profile_stack(p, ids + skip, depth - skip);
        if (stack_map[s] == RP_IDX_NONE) {
            free(stack_map);
            return NULL;
        }
    }
    return stack_map;
}

/* The rows of the Ractors other than the main one in a window
 * (ractors.h): the time and the allocations each gained, and the thread
 * number each row has after the main Ractor's threads (one per Ractor
 * with either). */
typedef struct ractor_gains {
    int64_t ns[RP_RACTORS_MAX];
    int64_t allocs[RP_RACTORS_MAX];
    uint32_t thread_seq[RP_RACTORS_MAX]; /* 0: no row */
    uint32_t rows;
} ractor_gains;

static void ractor_gains_of(const rp_write_request *req, bool memory, ractor_gains *g)
{
    rp_ractors_totals(req->recording, g->ns);
    rp_ractors_alloc_totals(req->recording, g->allocs);
    g->rows = 0;
    for (size_t i = 0; i < RP_RACTORS_MAX; i++) {
        g->ns[i] -= req->window->ractor_ns[i];
        g->allocs[i] = memory ? g->allocs[i] - req->window->ractor_allocs[i] : 0;
        bool row = rp_ractors_label(i) && (g->ns[i] > 0 || g->allocs[i] > 0);
        g->thread_seq[i] = row ? req->detected_threads + ++g->rows : 0;
    }
}

/* Ractor row `i`'s own frame, as a stack of the profile. */
static uint32_t ractor_stack(rp_profile *p, size_t i)
{
    uint32_t frame = rp_profile_frame(p, rp_profile_cstring(p, RP_RACTOR_PATH), rp_profile_cstring(p, rp_ractors_label(i)));
    return frame == RP_IDX_NONE ? RP_IDX_NONE : rp_profile_stack(p, &frame, 1);
}

/* Each Ractor's time in the window on its own frame, with the agent's
 * labels. */
static int add_ractor_rows(rp_profile *p, const ractor_gains *g, label_composer *labels)
{
    for (size_t i = 0; i < RP_RACTORS_MAX; i++) {
        if (!g->thread_seq[i] || g->ns[i] <= 0)
            continue;
        uint32_t stack = ractor_stack(p, i);
        uint32_t set = label_set_of(labels, rp_sample_key(0, RP_VM_RUNNING));
        if (stack == RP_IDX_NONE || set == RP_IDX_NONE ||
            rp_sample_table_add(&p->samples, stack, g->thread_seq[i], set, g->ns[i]) != RP_SAMPLE_OK)
            return -1;
    }
    return 0;
}

/* Each Ractor's allocations in the window on its own frame, every one
 * counted (no class: read only under the main Ractor's GVL). */
static int add_ractor_alloc_rows(rp_profile *p, const ractor_gains *g, label_composer *labels)
{
    rp_sample_table *allocs = rp_profile_table(p, RP_MEASURE_ALLOC_OBJECTS);
    for (size_t i = 0; i < RP_RACTORS_MAX; i++) {
        if (!g->thread_seq[i] || g->allocs[i] <= 0)
            continue;
        uint32_t stack = ractor_stack(p, i);
        uint32_t set = compose(labels, 0, NULL);
        if (stack == RP_IDX_NONE || set == RP_IDX_NONE ||
            rp_sample_table_add(allocs, stack, g->thread_seq[i], set, g->allocs[i]) != RP_SAMPLE_OK)
            return -1;
    }
    return 0;
}

/* The samples of the window: what each table entry gained since it began. */
static int copy_samples(rp_profile *p, const rp_write_request *req, const rp_aggregate *agg,
                        const uint32_t *frame_map, const ractor_gains *ractors)
{
    label_composer labels;
    int rc = composer_init(&labels, p, req->label_pid, false);
    uint32_t *stack_map = rc == 0 ? map_stacks(p, agg, frame_map) : NULL;
    if (!stack_map || rp_sample_table_reserve(&p->samples, agg->samples.count) != 0)
        rc = -1;
    for (size_t i = 0; i < agg->samples.count && rc == 0; i++) {
        const rp_sample *s = &agg->samples.samples[i];
        int64_t weight = rp_window_gain(req->window, i, s->weight);
        if (weight <= 0)
            continue;
        uint32_t set = label_set_of(&labels, s->label_set);
        int64_t taken = rp_sample_time(&agg->samples, i); /* raw recordings: CLOCK_MONOTONIC */
        if (taken)
            taken = req->window->start_realtime_ns + (taken - req->window->start_monotonic_ns);
        if (set == RP_IDX_NONE ||
            rp_sample_table_add_at(&p->samples, stack_map[s->stack], s->thread_seq, set, weight, taken) !=
                RP_SAMPLE_OK)
            rc = -1;
    }
    if (rc == 0)
        rc = add_ractor_rows(p, ractors, &labels);
    composer_free(&labels);
    free(stack_map);
    return rc;
}

/* The allocation samples of the window, and the objects still alive
 * (`retained`, taken before any Ruby call): each stands for `rate`
 * objects, its bytes times as many. */
static int copy_memory(rp_profile *p, const rp_write_request *req, const rp_retained *retained,
                       size_t retained_count, const ractor_gains *ractors)
{
    const rp_aggregate *agg = rp_aggregator_alloc_tables(req->recording);
    double scale = rp_allocs_scale(req->recording);
    int64_t rate = (int64_t)((double)req->rec.alloc_rate * scale + 0.5);
    label_composer labels;
    int rc = composer_init(&labels, p, req->label_pid, true);
    uint32_t *frame_map = rc == 0 ? resolve_frames(p, agg) : NULL;
    uint32_t *stack_map = frame_map ? map_stacks(p, agg, frame_map) : NULL;
    if (!stack_map)
        rc = -1;
    rp_sample_table *allocs = rp_profile_table(p, RP_MEASURE_ALLOC_OBJECTS);
    for (size_t i = 0; i < agg->samples.count && rc == 0; i++) {
        const rp_sample *s = &agg->samples.samples[i];
        int64_t objects = (int64_t)((double)rp_window_alloc_gain(req->window, i, s->weight) * scale + 0.5);
        uint32_t set = objects > 0 ? label_set_of(&labels, s->label_set) : 0;
        if (objects > 0 && (set == RP_IDX_NONE || rp_sample_table_add(allocs, stack_map[s->stack], s->thread_seq,
                                                                      set, objects) != RP_SAMPLE_OK))
            rc = -1;
    }
    if (rc == 0)
        rc = add_ractor_alloc_rows(p, ractors, &labels);
    rp_sample_table *objects = rp_profile_table(p, RP_MEASURE_RETAINED_OBJECTS);
    rp_sample_table *bytes = rp_profile_table(p, RP_MEASURE_RETAINED_BYTES);
    for (size_t i = 0; i < retained_count && rc == 0; i++) {
        const rp_retained *r = &retained[i];
        uint32_t set = label_set_of(&labels, r->key);
        if (set == RP_IDX_NONE ||
            rp_sample_table_add(objects, stack_map[r->stack], r->thread_seq, set, rate) != RP_SAMPLE_OK ||
            rp_sample_table_add(bytes, stack_map[r->stack], r->thread_seq, set, r->bytes * rate) != RP_SAMPLE_OK)
            rc = -1;
    }
    composer_free(&labels);
    free(stack_map);
    free(frame_map);
    p->meta.alloc_rate = req->rec.alloc_rate;
    p->meta.alloc_unfollowed = rp_allocs_unfollowed(req->recording) * rate;
    rp_allocs_window_lengths(&p->meta.alloc_window_ms, &p->meta.alloc_window_every_ms);
    return rc;
}

/* A counter's growth since the window began. */
#define SINCE(req, field) ((int64_t)((req)->stats.field - (req)->window->stats.field))

static void fill_meta(rp_profile *p, const rp_write_request *req, const rp_aggregate *agg)
{
    rp_meta *m = &p->meta;
    m->mode = req->rec.mode;
    m->pid = getpid();
    m->ppid = getppid();
    m->frequency = req->rec.frequency;
    m->trigger_count = SINCE(req, trigger_count);
    m->sampling_count = SINCE(req, sampling_count);
    m->sampling_time_ns = SINCE(req, sampling_time_ns);
    m->dropped_samples = SINCE(req, dropped_samples) + (int64_t)(agg->dropped - req->window->fold_dropped);
    m->truncated_samples = SINCE(req, truncated_samples);
    m->detected_thread_count = req->detected_threads;
    m->part = req->part;
    m->parts_at_interval = req->part_end == RP_PART_END_INTERVAL;
    m->parts_at_full_stacks = req->part_end == RP_PART_END_FULL_STACKS;
    m->start_time_ns = req->window->start_realtime_ns;
    m->duration_ns = rp_monotonic_ns() - req->window->start_monotonic_ns;
    m->total_duration_ns = m->duration_ns;
    rp_procstats_fill(p);
    m->user_ns -= req->window->user_ns;
    m->sys_ns -= req->window->sys_ns;
    int64_t worker = rp_worker_cpu_ns() - req->window->worker_cpu_ns;
    m->worker_cpu_ns = worker > 0 ? worker : 0;
}

int rp_writer_build(const rp_write_request *req, rp_profile *p)
{
    const rp_aggregate *agg = rp_aggregator_tables(req->recording);
    if (rp_profile_init(p, req->rec.aggregate) != 0) {
        rp_log("cannot write profile: out of memory");
        return -1;
    }
    /* The objects alive now, before resolving names runs Ruby code (and
     * maybe GC); the agent's own allocations meanwhile are no samples. */
    rp_retained *retained = NULL;
    bool memory = req->rec.alloc_rate > 0;
    size_t retained_count = memory ? rp_allocs_retained(req->recording, &retained) : 0;
    rp_allocs_suppress();
    ractor_gains ractors;
    ractor_gains_of(req, memory, &ractors);
    uint32_t *frame_map = resolve_frames(p, agg);
    int rc = frame_map && copy_samples(p, req, agg, frame_map, &ractors) == 0 ? 0 : -1;
    if (rc == 0 && memory)
        rc = copy_memory(p, req, retained, retained_count, &ractors);
    if (rc == 0)
        rc = rp_spans_take(req->recording, p, req->take_requests);
    rp_allocs_unsuppress();
    free(retained);
    free(frame_map);
    if (rc != 0) {
        rp_profile_free(p);
        rp_profile_init(p, req->rec.aggregate);
        rp_log("cannot write profile: out of memory");
        return -1;
    }
    fill_meta(p, req, agg);
    p->meta.detected_thread_count += ractors.rows; /* each Ractor's row is a thread of its own */
    return 0;
}

/* The thread writing (a Ruby thread at exit or a part's end, or the
 * worker): a profile written past the process's file-size limit (ulimit
 * -f) raises SIGXFSZ, whose default action kills the program — with its
 * buffered output, at its exit. Blocked while the file is written, the
 * write fails with EFBIG instead (the temporary file is removed, the
 * profile reported as not written), and the signal it raised is taken
 * back before the thread's mask is restored: the program never sees it.
 * One that was pending before is the program's and stays. */
static void between_chunks(void *req)
{
    ((const rp_write_request *)req)->between_chunks();
}

static int write_within_limits(const rp_write_request *req, const rp_profile *p, const char *path)
{
    sigset_t xfsz, saved, pending;
    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &xfsz, &saved);
    bool was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ);
    int err = req->between_chunks
                  ? rp_profile_write_file_paced(p, path, RP_GZIP_FAST, between_chunks, (void *)req)
                  : rp_profile_write_file(p, path, RP_GZIP_FAST);
    if (!was_pending) {
        const struct timespec now = {0, 0};
        while (sigtimedwait(&xfsz, NULL, &now) == SIGXFSZ)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    return err;
}

int rp_writer_save(const rp_write_request *req, const rp_profile *p, char *path_out,
                   size_t path_size, char *why, size_t why_size)
{
    const char *unsafe = rp_session_unsafe(req->session);
    if (unsafe) {
        snprintf(why, why_size, "cannot write profile to %s: %s", req->session->dir, unsafe);
        return -1;
    }
    if (rp_session_profile_path(req->session, getpid(), req->window->start_realtime_ns, path_out,
                                path_size) != 0) {
        snprintf(why, why_size, "cannot write profile: session directory path too long");
        return -1;
    }
    int err = write_within_limits(req, p, path_out);
    if (err) {
        snprintf(why, why_size, "cannot write profile %s: %s", path_out, strerror(err));
        return -1;
    }
    return 0;
}
