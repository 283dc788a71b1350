/*
 * agent/allocations/allocations.c — allocation sampling and followed objects. See
 * allocations.h for what runs where.
 *
 * The hot path is the NEWOBJ hook of an allocation that is not sampled:
 * one countdown, decremented, and one comparison. There is no FREEOBJ hook: an
 * object the GC frees costs the agent nothing unless it was sampled, and
 * the sampled ones are checked at the end of each marking (gc_watch.h) —
 * the young after every GC, the old after major ones.
 */
#include "allocations.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../common/anon_names.h"
#include "../../common/hash.h"
#include "../../common/idxset.h"
#include "../../common/vec.h"
#include "../sampling/aggregator.h"
#include "../sampling/frame_capture.h"
#include "../vm/gc_watch.h"
#include "../vm/liveness.h"
#include "../vm/ractors.h"
#include "../sampling/sampler.h"
#include "../vm/threads.h"
#include "../sampling/labels.h"

/* --- classes and keys ---------------------------------------------------- */

/* A sampled object's class, by its name — copied into the agent's memory
 * when the class is first sampled, so that nothing of the program's is
 * held: a class the program drops is freed as without the agent, and its
 * samples keep its name. A class with no permanent name is named after
 * its nearest named ancestor ("(anonymous subclass of Struct)"), and an
 * address in a name (a class under an anonymous module) is left out, so
 * that names are the same in every run. An object Ruby gives no class
 * (a hidden object, an internal imemo) is named by its type. */
typedef struct alloc_class {
    const char *name; /* malloc'd; NULL: by type */
    uint8_t type;
} alloc_class;

typedef struct alloc_key {
    uint32_t label_set, class_id;
} alloc_key;

/* Bounds: a program that makes classes or label sets without end (a
 * Struct per request) folds what is past them into one row each. */
#define CLASSES_MAX 65536
#define KEYS_MAX (1u << 20)
#define CLASS_NAME_MAX 256
static const char OTHER_CLASSES[] = "(other classes: more than 65,536 sampled)";

static alloc_class *classes;
static size_t class_count, classes_cap;
static rp_idxset class_index;
static alloc_key *keys;
static size_t key_count, keys_cap;
static rp_idxset key_index;

static uint64_t class_hash(const alloc_class *c)
{
    uint64_t h = rp_hash_mix64(c->type);
    if (c->name)
        h = rp_hash_combine(h, rp_hash_bytes(c->name, strlen(c->name)));
    return h;
}

static bool class_equals(const void *ctx, uint32_t i)
{
    const alloc_class *c = ctx;
    return classes[i].type == c->type &&
           (classes[i].name && c->name ? strcmp(classes[i].name, c->name) == 0 : classes[i].name == c->name);
}

static uint64_t key_hash(alloc_key k)
{
    return rp_hash_combine(rp_hash_mix64(k.label_set), k.class_id);
}

static bool key_equals(const void *ctx, uint32_t i)
{
    const alloc_key *k = ctx;
    return keys[i].label_set == k->label_set && keys[i].class_id == k->class_id;
}

/* Interns `item` (of `size` bytes) in a table of the two above, unless
 * it holds `max` items already. */
static uint32_t intern(void *item, size_t size, uint64_t hash, void **items, size_t *count, size_t *cap,
                       size_t max, rp_idxset *index, bool (*equals)(const void *, uint32_t))
{
    uint32_t id = rp_idxset_find(index, hash, equals, item);
    if (id != RP_IDX_NONE)
        return id;
    if (*count >= max || rp_vec_reserve(items, cap, *count + 1, size) != 0 ||
        rp_idxset_insert(index, hash, (uint32_t)*count) != 0)
        return RP_IDX_NONE;
    memcpy((char *)*items + *count * size, item, size);
    return (uint32_t)(*count)++;
}

/* The class's path into buf[]: false when it has none; *lasting says
 * whether it is permanent (a temporary one, under an anonymous module,
 * changes when the module is named). */
static bool path_of(VALUE klass, char *buf, size_t size, bool *lasting)
{
    VALUE path = rb_mod_name(klass);
    if (!RB_TYPE_P(path, T_STRING))
        return false;
    *lasting = RSTRING_LEN(path) < 2 || memcmp(RSTRING_PTR(path), "#<", 2) != 0;
    rp_name_without_addresses(RSTRING_PTR(path), (size_t)RSTRING_LEN(path), buf, size);
    return true;
}

/* A class's name into buf[], calling only what allocates nothing (inside
 * an allocation, where Ruby forbids that): its path, or its nearest named
 * ancestor's. True when the name is the class's own for good — it has a
 * permanent path, which no later assignment to a constant changes. */
static bool class_name_into(VALUE klass, char *buf, size_t size)
{
    bool lasting;
    if (path_of(klass, buf, size, &lasting))
        return lasting;
    char ancestor[CLASS_NAME_MAX];
    VALUE k = klass;
    for (int depth = 0; depth < 64 && &rb_class_get_superclass; depth++) {
        k = rb_class_get_superclass(k);
        if (!k || RB_SPECIAL_CONST_P(k))
            break;
        k = rb_class_real(k);
        if (!k)
            break;
        if (path_of(k, ancestor, sizeof(ancestor), &lasting)) {
            snprintf(buf, size, "(anonymous subclass of %.200s)", ancestor);
            return false;
        }
    }
    snprintf(buf, size, RB_TYPE_P(klass, T_MODULE) ? "(anonymous module)" : "(anonymous class)");
    return false;
}

/* Class ids by the class's address, for the classes whose name is theirs
 * for good (liveness.h: while the class is known to be at that address). */
#define CLASS_CACHE_SLOTS 512
static rp_live_entry class_cache[CLASS_CACHE_SLOTS];

/* The id of the class named `c` (its name the caller's), made when new. */
static uint32_t class_id_named(alloc_class c)
{
    uint64_t hash = class_hash(&c);
    uint32_t id = rp_idxset_find(&class_index, hash, class_equals, &c);
    if (id != RP_IDX_NONE)
        return id;
    if (class_count >= CLASSES_MAX - 1) {
        c = (alloc_class){OTHER_CLASSES, 0};
        hash = class_hash(&c);
    } else if (c.name && !(c.name = strdup(c.name))) {
        return RP_IDX_NONE;
    }
    id = intern(&c, sizeof(c), hash, (void **)&classes, &class_count, &classes_cap, CLASSES_MAX, &class_index,
                class_equals);
    if (id == RP_IDX_NONE && c.name != OTHER_CLASSES)
        free((void *)c.name);
    return id;
}

/* The class id of a new object. An imemo's class field holds other data,
 * and a class being built has no real class yet when it is a
 * singleton's. */
static uint32_t class_id_of(VALUE obj)
{
    uint8_t type = (uint8_t)RB_BUILTIN_TYPE(obj);
    VALUE klass = type == RUBY_T_IMEMO || type == RUBY_T_NONE ? 0 : RBASIC(obj)->klass;
    if (!klass || (klass = rb_obj_class(obj)) == 0)
        return class_id_named((alloc_class){NULL, type});
    rp_live_now now = rp_live_now_get();
    uint32_t id;
    if (rp_live_cache_find(class_cache, CLASS_CACHE_SLOTS, klass, &now, &id))
        return id;
    char name[CLASS_NAME_MAX];
    bool lasting = class_name_into(klass, name, sizeof(name));
    id = class_id_named((alloc_class){name, 0});
    if (lasting && id != RP_IDX_NONE)
        rp_live_cache_keep(class_cache, CLASS_CACHE_SLOTS, klass, &now, id);
    return id;
}

static uint32_t key_of(uint32_t label_set, VALUE obj)
{
    uint32_t class_id = class_id_of(obj);
    if (class_id == RP_IDX_NONE)
        return RP_IDX_NONE;
    alloc_key k = {label_set, class_id};
    uint32_t id = intern(&k, sizeof(k), key_hash(k), (void **)&keys, &key_count, &keys_cap,
                         KEYS_MAX - CLASSES_MAX, &key_index, key_equals);
    if (id != RP_IDX_NONE || key_count < KEYS_MAX - CLASSES_MAX)
        return id;
    /* Past the bound the class's samples go on without the thread's
     * labels: the room left holds one such key per class. */
    k = (alloc_key){0, class_id};
    return intern(&k, sizeof(k), key_hash(k), (void **)&keys, &key_count, &keys_cap, KEYS_MAX, &key_index,
                  key_equals);
}

void rp_allocs_key_split(uint32_t key, uint32_t *label_set, uint32_t *class_id)
{
    *label_set = keys[key].label_set;
    *class_id = keys[key].class_id;
}

static const char *type_name(uint8_t type)
{
    static const char *const names[RUBY_T_MASK + 1] = {
        [RUBY_T_OBJECT] = "Object", [RUBY_T_CLASS] = "Class", [RUBY_T_MODULE] = "Module",
        [RUBY_T_FLOAT] = "Float", [RUBY_T_STRING] = "String", [RUBY_T_REGEXP] = "Regexp",
        [RUBY_T_ARRAY] = "Array", [RUBY_T_HASH] = "Hash", [RUBY_T_STRUCT] = "Struct",
        [RUBY_T_BIGNUM] = "Integer", [RUBY_T_FILE] = "IO", [RUBY_T_DATA] = "Data",
        [RUBY_T_MATCH] = "MatchData", [RUBY_T_COMPLEX] = "Complex", [RUBY_T_RATIONAL] = "Rational",
        [RUBY_T_SYMBOL] = "Symbol", [RUBY_T_ICLASS] = "iclass",
    };
    return type <= RUBY_T_MASK && names[type] ? names[type] : "object";
}

const char *rp_allocs_class_name(uint32_t class_id, char *buf, size_t size)
{
    const alloc_class *c = &classes[class_id];
    if (c->name)
        snprintf(buf, size, "%s", c->name);
    else if (c->type == RUBY_T_IMEMO)
        snprintf(buf, size, "(internal)");
    else
        snprintf(buf, size, "(hidden %s)", type_name(c->type));
    return buf;
}

void rp_allocs_carry_labels(void)
{
    rp_idxset_free(&key_index);
    rp_idxset_init(&key_index);
    for (size_t i = 0; i < key_count; i++) {
        keys[i].label_set = rp_labels_carry(keys[i].label_set);
        /* equal keys may result: the first is found, both stay valid */
        rp_idxset_insert(&key_index, key_hash(keys[i]), (uint32_t)i);
    }
}

/* --- followed objects ---------------------------------------------------- */

/* A sampled object, followed until a marking of the GC finds it dead, and
 * its samples in each recording. */
typedef struct followed {
    VALUE obj;
    uint32_t stack[RP_RECORDINGS], key[RP_RECORDINGS];
    uint32_t thread_seq;
    uint8_t recordings; /* bit r: followed for recording r */
} followed;

/* Two lists: objects still young, which any GC may free and the end of
 * every marking checks, and objects Ruby has promoted to the old
 * generation, which only a major GC frees and only a major marking checks.
 * A minor GC so costs the objects sampled over the last few GCs, however
 * many are followed. */
typedef struct follow_list {
    followed *items;
    size_t count, cap;
} follow_list;

static follow_list young, old;
static size_t follow_peak;
static long follow_max;
static int64_t unfollowed[RP_RECORDINGS];

static size_t follow_count(void)
{
    return young.count + old.count;
}

static void remove_at(follow_list *l, size_t i)
{
    l->items[i] = l->items[--l->count];
}

static int append(follow_list *l, const followed *f)
{
    if (RP_VEC_RESERVE(l->items, l->cap, l->count + 1) != 0)
        return -1;
    l->items[l->count++] = *f;
    return 0;
}

static void follow(const followed *f, const bool due[RP_RECORDINGS])
{
    if (follow_count() < (size_t)follow_max && append(&young, f) == 0) {
        if (follow_count() > follow_peak)
            follow_peak = follow_count();
        return;
    }
    for (int r = 0; r < RP_RECORDINGS; r++)
        if (due[r])
            unfollowed[r]++;
}

static void forget_in(follow_list *l, uint8_t bit)
{
    for (size_t i = 0; i < l->count;) {
        if ((l->items[i].recordings & bit) && !(l->items[i].recordings &= (uint8_t)~bit)) {
            remove_at(l, i); /* the last moved into i: look again */
            continue;
        }
        i++;
    }
}

void rp_allocs_forget(rp_rec_id id)
{
    uint8_t bit = (uint8_t)(1u << id);
    forget_in(&young, bit);
    forget_in(&old, bit);
    unfollowed[id] = 0;
}

void rp_allocs_footprint(size_t *followed_now, size_t *peak, size_t *bytes)
{
    *followed_now = follow_count();
    *peak = follow_peak;
    *bytes = (young.cap + old.cap) * sizeof(followed);
}

int64_t rp_allocs_unfollowed(rp_rec_id id)
{
    return unfollowed[id];
}

/* Drops the objects of `l`, counting them as not followed. */
static void drop_all(follow_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        for (int r = 0; r < RP_RECORDINGS; r++)
            if (l->items[i].recordings & (1u << r))
                unfollowed[r]++;
    l->count = 0;
}

/* gc_watch.h watcher — inside GC, at the end of a marking, before the
 * sweep frees anything: the objects it did not reach leave the lists, the
 * young ones Ruby has just promoted move to the old list. After a GC the
 * hook did not see (another Ractor's thread ran it) any followed object
 * may have died and its slot been reused, and more such GCs will come:
 * what is followed is dropped, counted as not followed, and nothing is
 * followed any more — as where mark bits cannot be read. */
static void at_marking_end(bool major, rp_gc_marks marks)
{
    if (marks != RP_MARKS_READABLE) {
        drop_all(&young);
        drop_all(&old);
        follow_max = 0;
        return;
    }
    for (size_t i = 0; i < young.count;) {
        followed *f = &young.items[i];
        if (!rp_gc_watch_marked(f->obj) || (RB_OBJ_PROMOTED_RAW(f->obj) && append(&old, f) == 0)) {
            remove_at(&young, i);
            continue;
        }
        i++;
    }
    for (size_t i = 0; major && i < old.count;) {
        if (!rp_gc_watch_marked(old.items[i].obj)) {
            remove_at(&old, i);
            continue;
        }
        i++;
    }
}

static size_t count_for(const follow_list *l, uint8_t bit)
{
    size_t n = 0;
    for (size_t i = 0; i < l->count; i++)
        n += (l->items[i].recordings & bit) != 0;
    return n;
}

/* The objects of `l` followed for recording `id` into out[]; returns how
 * many. */
static size_t collect_retained(const follow_list *l, rp_rec_id id, rp_retained *out)
{
    uint8_t bit = (uint8_t)(1u << id);
    size_t kept = 0;
    for (size_t i = 0; i < l->count; i++) {
        const followed *f = &l->items[i];
        if (!(f->recordings & bit))
            continue;
        size_t bytes = rb_obj_memsize_of ? rb_obj_memsize_of(f->obj) : sizeof(struct RBasic) * 5;
        out[kept++] = (rp_retained){f->stack[id], f->key[id], f->thread_seq, (int64_t)bytes};
    }
    return kept;
}

static void renumber_followed(follow_list *l, rp_rec_id id, rp_stack_fn *fn)
{
    uint8_t bit = (uint8_t)(1u << id);
    for (size_t i = 0; i < l->count; i++)
        if (l->items[i].recordings & bit)
            l->items[i].stack[id] = fn(l->items[i].stack[id]);
}

static void followed_stacks(rp_rec_id id, rp_stack_fn *fn)
{
    renumber_followed(&young, id, fn);
    renumber_followed(&old, id, fn);
}

void rp_allocs_let_go_of_stacks(void)
{
    for (int r = 0; r < RP_RECORDINGS; r++)
        rp_aggregator_compact_alloc_stacks((rp_rec_id)r, followed_stacks); /* out of memory: kept as they are */
}

size_t rp_allocs_retained(rp_rec_id id, rp_retained **out)
{
    *out = NULL;
    if (rp_gc_watch_missed_now()) {
        /* Another Ractor ran a GC the hooks did not see (Ruby 3.4): any
         * followed object may be gone, its slot free or reused; reading it
         * aborted Ruby (memsize_of: unknown data type). They are dropped
         * and counted as not followed, as the next marking end would, and
         * the profile says so. */
        drop_all(&young);
        drop_all(&old);
        follow_max = 0;
        return 0;
    }
    uint8_t bit = (uint8_t)(1u << id);
    size_t n = count_for(&young, bit) + count_for(&old, bit);
    if (n == 0 || !(*out = rp_alloc_array(n, sizeof(**out))))
        return 0;
    size_t kept = collect_retained(&young, id, *out);
    return kept + collect_retained(&old, id, *out + kept);
}

/* --- sampling ------------------------------------------------------------ */

/* Each recording's allocations to go until its next sampled one, and the
 * one countdown the hook decrements: the allocations until the nearest of
 * those (armed at gap_armed for the recordings of armed_mask, those that
 * accepted samples when the recordings' accepting changes counted
 * armed_changes). An allocation not sampled costs that decrement and a
 * comparison; the rest happens once per sampled allocation, or when a
 * recording starts or stops accepting. */
static int64_t countdown[RP_RECORDINGS];
static int64_t gap_left = 1, gap_armed = 1;
static uint8_t armed_mask;
static uint32_t armed_changes = UINT32_MAX;
static int suppressed;
static bool record_lines;
static uint64_t rng_state;

/* xorshift64*: a uniform double in (0, 1). */
static double uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    uint64_t r = rng_state * 0x2545F4914F6CDD1DULL;
    return ((double)(r >> 11) + 0.5) / 9007199254740992.0;
}

/* Allocations until the next sampled one: geometric, of mean `rate`. */
static int64_t next_gap(long rate)
{
    if (rate <= 1)
        return 1;
    double gap = floor(log(uniform()) / log1p(-1.0 / (double)rate)) + 1;
    return gap < 1 ? 1 : gap > 1e15 ? (int64_t)1e15 : (int64_t)gap;
}

static void seed(void)
{
    rng_state = (uint64_t)rp_monotonic_ns() ^ ((uint64_t)getpid() << 32) ^ 0x9E3779B97F4A7C15ULL;
    if (!rng_state)
        rng_state = 1;
}

/* The allocations since the gap was armed come off the countdowns of the
 * recordings it was armed for. */
static void spend(void)
{
    int64_t spent = gap_armed - gap_left;
    for (int r = 0; r < RP_RECORDINGS; r++)
        if (armed_mask & (1u << r))
            countdown[r] -= spent;
    gap_armed = gap_left;
}

static bool samples_now(const rp_recording *rec)
{
    return rec->cfg.alloc_rate > 0 && atomic_load_explicit(&rec->accepting, memory_order_relaxed);
}

/* The recordings whose countdown has run out (this allocation is their
 * sampled one; false when none), their next gaps drawn, and the countdown
 * armed anew at the nearest for the recordings accepting now. */
static bool due_recordings(bool due[RP_RECORDINGS])
{
    spend();
    bool any = false;
    int64_t nearest = INT64_MAX / 2; /* none accepting: the next change re-arms */
    armed_mask = 0;
    for (int r = 0; r < RP_RECORDINGS; r++) {
        rp_recording *rec = rp_recording_get((rp_rec_id)r);
        due[r] = false;
        if (countdown[r] <= 0 && rec->cfg.alloc_rate > 0) {
            due[r] = samples_now(rec);
            any = any || due[r];
            countdown[r] = next_gap(rec->cfg.alloc_rate);
        }
        if (!samples_now(rec))
            continue;
        armed_mask |= (uint8_t)(1u << r);
        if (countdown[r] < nearest)
            nearest = countdown[r];
    }
    gap_left = gap_armed = nearest;
    armed_changes = rp_recordings_accepting_changed;
    return any;
}

void rp_allocs_begin(rp_rec_id id)
{
    rp_allocs_forget(id);
    rp_allocs_restart_count(id);
    spend();
    countdown[id] = next_gap(rp_recording_get(id)->cfg.alloc_rate);
    armed_changes = rp_recordings_accepting_changed - 1; /* re-arm at the next allocation */
}

void rp_allocs_suppress(void)
{
    suppressed++;
}

void rp_allocs_unsuppress(void)
{
    suppressed--;
}

static uint32_t stack_frames[RP_STACK_MAX];
static int stack_lines[RP_STACK_MAX];

/* NEWOBJ hook (GVL held, inside the allocation, GC disabled). Ruby 4.0
 * calls it for every Ractor, under its VM lock (gc.c, newobj_of): never
 * two at once, but another Ractor's beside the main Ractor's sampling job
 * and requests, which share the frame and class caches with this hook
 * under the main Ractor's GVL only. Another Ractor's allocation is only
 * counted for its Ractor's row (ractors.h: atomics) and touches nothing
 * else of the agent's; on 3.4 the hook runs for the main Ractor only. */
static void on_newobj(VALUE data, rb_trace_arg_t *arg)
{
    (void)data;
#if RUBY_API_VERSION_MAJOR >= 4
    if (atomic_load_explicit(&rp_ractors_others_ran, memory_order_relaxed) && !rp_ractors_current_is_main()) {
        rp_ractors_count_allocation();
        return;
    }
#endif
    if (--gap_left > 0 && armed_changes == rp_recordings_accepting_changed)
        return;
    bool due[RP_RECORDINGS];
    if (!due_recordings(due) || suppressed)
        return;
    VALUE obj = rb_tracearg_object(arg);
    rp_thread *t = rp_sampler_current_thread();
    int depth = rp_frame_capture(0, RP_STACK_MAX, stack_frames, record_lines ? stack_lines : NULL);
    if (!t || depth <= 0)
        return;
    uint32_t key = key_of(t->label_set, obj);
    if (key == RP_IDX_NONE)
        return;
    followed f = {.obj = obj, .thread_seq = t->thread_seq};
    for (int r = 0; r < RP_RECORDINGS; r++) {
        if (!due[r])
            continue;
        uint32_t stack = rp_aggregator_add_allocation((rp_rec_id)r, stack_frames, record_lines ? stack_lines : NULL,
                                                      (uint32_t)depth, t->thread_seq, key,
                                                      rp_recording_get((rp_rec_id)r)->cfg.alloc_rate);
        if (stack == RP_IDX_NONE) {
            due[r] = false;
            continue;
        }
        f.stack[r] = stack;
        f.key[r] = key;
        f.recordings |= (uint8_t)(1u << r);
    }
    if (f.recordings && follow_max > 0)
        follow(&f, due);
}

static bool hooked;

/* --- windows (RPERF_ALLOC=window) ----------------------------------------- */

/* The hook is installed for WINDOW_NS at a time, the windows WINDOW_EVERY_NS
 * apart on average (each gap drawn uniformly from half to one and a half
 * of it, so that no periodic pattern of the program aliases with them),
 * opened and closed by the sampling job. Ruby's own count of allocations
 * (GC.stat's total_allocated_objects) over the windows and over the whole
 * recording says how many allocations the windows' samples stand for. */
#define WINDOW_NS (10 * 1000000LL)
#define WINDOW_EVERY_NS (1000 * 1000000LL)

static bool window_mode, window_open;
static int64_t window_next_ns, window_close_ns;
static size_t window_opened_at;               /* total allocated when it opened */
static size_t base_allocated[RP_RECORDINGS];  /* total allocated when the recording (part) began */
static size_t in_windows[RP_RECORDINGS];      /* allocations inside its windows */
static VALUE sym_total_allocated = Qnil;

static size_t total_allocated(void)
{
    return sym_total_allocated == Qnil ? 0 : rb_gc_stat(sym_total_allocated);
}

static bool any_recording_samples(void);

/* Sampling job (GVL held, at a safepoint): opens or closes the window when
 * it is time. */
void rp_allocs_window_tick(int64_t now_ns)
{
    if (!window_mode || !any_recording_samples())
        return;
    if (!window_open && now_ns >= window_next_ns) {
        window_opened_at = total_allocated();
        window_close_ns = now_ns + WINDOW_NS;
        window_open = true;
        rp_allocs_update();
    } else if (window_open && now_ns >= window_close_ns) {
        size_t allocated = total_allocated() - window_opened_at;
        for (int r = 0; r < RP_RECORDINGS; r++)
            in_windows[r] += allocated;
        window_open = false;
        rp_allocs_update();
        window_next_ns = now_ns + (int64_t)((0.5 + uniform()) * (double)WINDOW_EVERY_NS);
    }
}

/* How many allocations of the recording each sampled one's weight must be
 * multiplied by: the allocations since it (or its part) began over those
 * inside its windows; 1 outside window mode. */
double rp_allocs_scale(rp_rec_id id)
{
    if (!window_mode)
        return 1.0;
    size_t windows = in_windows[id] + (window_open ? total_allocated() - window_opened_at : 0);
    size_t all = total_allocated() - base_allocated[id];
    return windows > 0 && all > windows ? (double)all / (double)windows : 1.0;
}

void rp_allocs_window_lengths(int64_t *window_ms, int64_t *every_ms)
{
    *window_ms = window_mode ? WINDOW_NS / 1000000 : 0;
    *every_ms = window_mode ? WINDOW_EVERY_NS / 1000000 : 0;
}

void rp_allocs_restart_count(rp_rec_id id)
{
    base_allocated[id] = total_allocated();
    in_windows[id] = 0;
}

/* A hook taking (data, trace arg) — RUBY_EVENT_HOOK_FLAG_RAW_ARG — is
 * registered under the type of the others (via void (*)(void), the cast
 * C allows between function pointer types). */
#define RAW_HOOK(fn) ((rb_event_hook_func_t)(void (*)(void))(fn))

static bool any_recording_samples(void)
{
    for (int r = 0; r < RP_RECORDINGS; r++) {
        rp_recording *rec = rp_recording_get((rp_rec_id)r);
        if (rec->open && rec->cfg.alloc_rate > 0)
            return true;
    }
    return false;
}

void rp_allocs_update(void)
{
    bool wanted = any_recording_samples() && (!window_mode || window_open);
    if (wanted == hooked)
        return;
    if (wanted) {
        rb_add_event_hook2(RAW_HOOK(on_newobj), RUBY_INTERNAL_EVENT_NEWOBJ, Qnil,
                           RUBY_EVENT_HOOK_FLAG_SAFE | RUBY_EVENT_HOOK_FLAG_RAW_ARG);
    } else {
        /* What the closed recordings followed stays listed for their last
         * profile, built before any GC can run (rp_allocs_retained), and
         * is forgotten with them (rp_allocs_forget). */
        rb_remove_event_hook(RAW_HOOK(on_newobj));
    }
    hooked = wanted;
}

/* --- GC: marking and compaction ----------------------------------------- */

/* GVL held, inside GC, after objects moved: followed objects are not
 * marked by the agent (following must not keep them alive), so their
 * addresses are updated here. */
static void relocate(follow_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        l->items[i].obj = rb_gc_location(l->items[i].obj);
}

static void update_moved(void *unused)
{
    (void)unused;
    relocate(&young);
    relocate(&old);
}

static const rb_data_type_t gc_type = {
    .wrap_struct_name = "rperf_agent_allocations",
    .function = {.dcompact = update_moved},
};

static VALUE gc_object = Qnil;

int rp_allocs_init(long max, bool lines, bool windows)
{
    follow_max = max;
    record_lines = lines;
    seed();
    window_mode = windows;
    if (windows) {
        /* made now: not inside the sampling job's first call */
        sym_total_allocated = ID2SYM(rb_intern("total_allocated_objects"));
        rb_gc_stat(sym_total_allocated);
        window_next_ns = rp_monotonic_ns() + (int64_t)(uniform() * (double)WINDOW_EVERY_NS);
    }
    rp_idxset_init(&class_index);
    rp_idxset_init(&key_index);
    if (!rp_gc_watch_marks_known())
        follow_max = 0; /* this Ruby's mark bits cannot be read: nothing followed */
    rp_gc_watch_at_marking_end(at_marking_end);
    rp_sampler_set_after_round(windows ? rp_allocs_window_tick : NULL);
    if (gc_object == Qnil) {
        /* Ruby marks and updates a data object only when it has data */
        gc_object = rb_data_typed_object_wrap(0, &follow_max, &gc_type);
        rb_gc_register_address(&gc_object);
    }
    return 0;
}

void rp_allocs_after_fork(void)
{
    seed();
    for (int r = 0; r < RP_RECORDINGS; r++)
        rp_allocs_forget((rp_rec_id)r);
}
