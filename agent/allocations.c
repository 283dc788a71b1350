/*
 * agent/allocations.c — allocation sampling and followed objects. See
 * allocations.h for what runs where.
 *
 * The hot path is the NEWOBJ hook of an allocation that is not sampled:
 * one countdown per recording, decremented. FREEOBJ, called for every
 * object the GC frees, is one probe of the followed-object table (keys
 * apart from their payload, at most half full) when anything is followed,
 * nothing otherwise.
 */
#include "allocations.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/anon_names.h"
#include "../common/hash.h"
#include "../common/idxset.h"
#include "../common/vec.h"
#include "aggregator.h"
#include "frame_capture.h"
#include "sampler.h"
#include "threads.h"
#include "labels.h"

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

static bool path_of(VALUE klass, char *buf, size_t size)
{
    VALUE path = rb_mod_name(klass);
    if (!RB_TYPE_P(path, T_STRING))
        return false;
    rp_name_without_addresses(RSTRING_PTR(path), (size_t)RSTRING_LEN(path), buf, size);
    return true;
}

/* A class's name into buf[], calling only what allocates nothing (inside
 * an allocation, where Ruby forbids that): its path, or its nearest named
 * ancestor's. */
static void class_name_into(VALUE klass, char *buf, size_t size)
{
    if (path_of(klass, buf, size))
        return;
    char ancestor[CLASS_NAME_MAX];
    VALUE k = klass;
    for (int depth = 0; depth < 64 && &rb_class_get_superclass; depth++) {
        k = rb_class_get_superclass(k);
        if (!k || RB_SPECIAL_CONST_P(k))
            break;
        k = rb_class_real(k);
        if (!k)
            break;
        if (path_of(k, ancestor, sizeof(ancestor))) {
            snprintf(buf, size, "(anonymous subclass of %.200s)", ancestor);
            return;
        }
    }
    snprintf(buf, size, RB_TYPE_P(klass, T_MODULE) ? "(anonymous module)" : "(anonymous class)");
}

/* The class id of a new object. An imemo's class field holds other data,
 * and a class being built has no real class yet when it is a
 * singleton's. */
static uint32_t class_id_of(VALUE obj)
{
    uint8_t type = (uint8_t)RB_BUILTIN_TYPE(obj);
    VALUE klass = type == RUBY_T_IMEMO || type == RUBY_T_NONE ? 0 : RBASIC(obj)->klass;
    char name[CLASS_NAME_MAX];
    alloc_class c = {NULL, type};
    if (klass && (klass = rb_obj_class(obj)) != 0) {
        class_name_into(klass, name, sizeof(name));
        c = (alloc_class){name, 0};
    }
    uint64_t hash = class_hash(&c);
    uint32_t id = rp_idxset_find(&class_index, hash, class_equals, &c);
    if (id != RP_IDX_NONE)
        return id;
    if (class_count >= CLASSES_MAX - 1) {
        c = (alloc_class){OTHER_CLASSES, 0};
        hash = class_hash(&c);
    } else if (c.name && !(c.name = strdup(name))) {
        return RP_IDX_NONE;
    }
    id = intern(&c, sizeof(c), hash, (void **)&classes, &class_count, &classes_cap, CLASSES_MAX, &class_index,
                class_equals);
    if (id == RP_IDX_NONE && c.name != OTHER_CLASSES)
        free((void *)c.name);
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

typedef struct followed {
    uint32_t stack[RP_RECORDINGS], key[RP_RECORDINGS];
    uint32_t thread_seq;
    uint8_t recordings; /* bit r: followed for recording r */
} followed;

/* Open addressing with linear probing; key 0 (Qfalse, never an object's
 * address) is a free slot; deletion shifts entries back, so no tombstones. */
static VALUE *objects;
static followed *entries;
static size_t slots, follow_count; /* slots: a power of two, or 0 */
static size_t follow_peak;
static long follow_max;
static int64_t unfollowed[RP_RECORDINGS];

static size_t slot_of(VALUE obj)
{
    return (size_t)rp_hash_mix64((uint64_t)obj) & (slots - 1);
}

static size_t find_slot(VALUE obj)
{
    if (!slots)
        return SIZE_MAX;
    for (size_t i = slot_of(obj);; i = (i + 1) & (slots - 1)) {
        if (objects[i] == obj)
            return i;
        if (objects[i] == 0)
            return SIZE_MAX;
    }
}

static void put(VALUE obj, const followed *f)
{
    size_t i = slot_of(obj);
    while (objects[i] != 0)
        i = (i + 1) & (slots - 1);
    objects[i] = obj;
    entries[i] = *f;
    if (++follow_count > follow_peak)
        follow_peak = follow_count;
}

static void remove_slot(size_t i)
{
    objects[i] = 0;
    follow_count--;
    for (size_t j = (i + 1) & (slots - 1); objects[j] != 0; j = (j + 1) & (slots - 1)) {
        size_t home = slot_of(objects[j]);
        /* entry j may move to the hole at i when its home is not in (i, j] */
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (stays)
            continue;
        objects[i] = objects[j];
        entries[i] = entries[j];
        objects[j] = 0;
        i = j;
    }
}

/* Moves every entry into tables of `n` slots (the old ones when equal).
 * Entries are re-keyed through `relocate` (rb_gc_location at compaction).
 * Returns 0, or -1 when out of memory (the table is then unchanged). */
static int rebuild(size_t n, VALUE (*relocate)(VALUE))
{
    VALUE *old_objects = objects;
    followed *old_entries = entries;
    size_t old_slots = slots;
    VALUE *new_objects = calloc(n, sizeof(*new_objects));
    followed *new_entries = rp_alloc_array(n, sizeof(*new_entries));
    if (!new_objects || !new_entries) {
        free(new_objects);
        free(new_entries);
        return -1;
    }
    objects = new_objects;
    entries = new_entries;
    slots = n;
    follow_count = 0;
    for (size_t i = 0; i < old_slots; i++)
        if (old_objects[i])
            put(relocate ? relocate(old_objects[i]) : old_objects[i], &old_entries[i]);
    free(old_objects);
    free(old_entries);
    return 0;
}

/* Room for one more entry, at most half the slots in use. */
static bool has_room(void)
{
    if (follow_count >= (size_t)follow_max)
        return false;
    if ((follow_count + 1) * 2 <= slots)
        return true;
    return rebuild(slots ? slots * 2 : 1024, NULL) == 0;
}

static void follow(VALUE obj, const followed *f, const bool due[RP_RECORDINGS])
{
    if (has_room()) {
        put(obj, f);
        return;
    }
    for (int r = 0; r < RP_RECORDINGS; r++)
        if (due[r])
            unfollowed[r]++;
}

void rp_allocs_forget(rp_rec_id id)
{
    uint8_t bit = (uint8_t)(1u << id);
    for (size_t i = 0; i < slots;) {
        if (objects[i] && (entries[i].recordings & bit) && !(entries[i].recordings &= (uint8_t)~bit)) {
            remove_slot(i); /* may shift a later entry into i: look again */
            continue;
        }
        i++;
    }
    unfollowed[id] = 0;
}

void rp_allocs_footprint(size_t *followed, size_t *peak, size_t *bytes)
{
    *followed = follow_count;
    *peak = follow_peak;
    *bytes = slots * (sizeof(*objects) + sizeof(*entries));
}

int64_t rp_allocs_unfollowed(rp_rec_id id)
{
    return unfollowed[id];
}

size_t rp_allocs_retained(rp_rec_id id, rp_retained **out)
{
    *out = NULL;
    uint8_t bit = (uint8_t)(1u << id);
    size_t n = 0;
    for (size_t i = 0; i < slots; i++)
        n += objects[i] && (entries[i].recordings & bit);
    if (n == 0 || !(*out = rp_alloc_array(n, sizeof(**out))))
        return 0;
    size_t kept = 0;
    for (size_t i = 0; i < slots; i++) {
        VALUE obj = objects[i];
        if (!obj || !(entries[i].recordings & bit))
            continue;
        if (rb_objspace_garbage_object_p && rb_objspace_garbage_object_p(obj))
            continue; /* found dead by the last marking, not swept yet */
        size_t bytes = rb_obj_memsize_of ? rb_obj_memsize_of(obj) : sizeof(struct RBasic) * 5;
        (*out)[kept++] = (rp_retained){entries[i].stack[id], entries[i].key[id], entries[i].thread_seq,
                                       (int64_t)bytes};
    }
    return kept;
}

/* --- sampling ------------------------------------------------------------ */

static int64_t countdown[RP_RECORDINGS];
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

void rp_allocs_begin(rp_rec_id id)
{
    rp_allocs_forget(id);
    countdown[id] = next_gap(rp_recording_get(id)->cfg.alloc_rate);
}

void rp_allocs_suppress(void)
{
    suppressed++;
}

void rp_allocs_unsuppress(void)
{
    suppressed--;
}

/* The recordings this allocation is the sampled one of; false when none. */
static bool due_recordings(bool due[RP_RECORDINGS])
{
    bool any = false;
    for (int r = 0; r < RP_RECORDINGS; r++) {
        rp_recording *rec = rp_recording_get((rp_rec_id)r);
        due[r] = false;
        if (rec->cfg.alloc_rate <= 0 || !atomic_load_explicit(&rec->accepting, memory_order_relaxed) ||
            --countdown[r] > 0)
            continue;
        countdown[r] = next_gap(rec->cfg.alloc_rate);
        due[r] = any = true;
    }
    return any;
}

static uint32_t stack_frames[RP_STACK_MAX];
static int stack_lines[RP_STACK_MAX];

/* NEWOBJ hook (GVL held, inside the allocation, GC disabled). */
static void on_newobj(VALUE data, rb_trace_arg_t *arg)
{
    (void)data;
    bool due[RP_RECORDINGS];
    if (suppressed || !due_recordings(due))
        return;
    VALUE obj = rb_tracearg_object(arg);
    rp_thread *t = rp_sampler_current_thread();
    int depth = rp_frame_capture(0, RP_STACK_MAX, stack_frames, record_lines ? stack_lines : NULL);
    if (!t || depth <= 0)
        return;
    uint32_t key = key_of(t->label_set, obj);
    if (key == RP_IDX_NONE)
        return;
    followed f = {.thread_seq = t->thread_seq};
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
        follow(obj, &f, due);
}

/* FREEOBJ hook (GVL held, inside the GC's sweep). */
static void on_freeobj(VALUE data, rb_trace_arg_t *arg)
{
    (void)data;
    if (follow_count == 0)
        return;
    size_t i = find_slot(rb_tracearg_object(arg));
    if (i != SIZE_MAX)
        remove_slot(i);
}

static bool hooked;

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
    bool wanted = any_recording_samples();
    if (wanted == hooked)
        return;
    if (wanted) {
        rb_add_event_hook2(RAW_HOOK(on_newobj), RUBY_INTERNAL_EVENT_NEWOBJ, Qnil,
                           RUBY_EVENT_HOOK_FLAG_SAFE | RUBY_EVENT_HOOK_FLAG_RAW_ARG);
        if (follow_max > 0)
            rb_add_event_hook2(RAW_HOOK(on_freeobj), RUBY_INTERNAL_EVENT_FREEOBJ, Qnil,
                               RUBY_EVENT_HOOK_FLAG_SAFE | RUBY_EVENT_HOOK_FLAG_RAW_ARG);
    } else {
        rb_remove_event_hook(RAW_HOOK(on_newobj));
        /* What the closed recordings followed stays listed for their last
         * profile, built before any GC can run (rp_allocs_retained), and
         * is forgotten with them (rp_allocs_forget). */
        if (follow_max > 0)
            rb_remove_event_hook(RAW_HOOK(on_freeobj));
    }
    hooked = wanted;
}

/* --- GC: marking and compaction ----------------------------------------- */

/* GVL held, inside GC, after objects moved: followed objects are not
 * marked by the agent (following must not keep them alive), so their
 * addresses are updated here. */
static void update_moved(void *unused)
{
    (void)unused;
    bool moved = false;
    for (size_t i = 0; i < slots && !moved; i++)
        moved = objects[i] && rb_gc_location(objects[i]) != objects[i];
    if (moved && rebuild(slots, rb_gc_location) != 0) {
        /* no memory to re-key: what moved can no longer be told apart */
        for (int r = 0; r < RP_RECORDINGS; r++)
            rp_allocs_forget((rp_rec_id)r);
    }
}

static const rb_data_type_t gc_type = {
    .wrap_struct_name = "rperf_agent_allocations",
    .function = {.dcompact = update_moved},
};

static VALUE gc_object = Qnil;

int rp_allocs_init(long max, bool lines)
{
    follow_max = max;
    record_lines = lines;
    seed();
    rp_idxset_init(&class_index);
    rp_idxset_init(&key_index);
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
