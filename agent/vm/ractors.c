/*
 * agent/vm/ractors.c — Ractors' time. See ractors.h.
 */
#include "ractors.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../../common/clock.h"
#include "../base/ruby_layout.h"

/* Ruby 3.4's ractor_core.h (and ruby_layout.h), checked by layout_holds(). */
enum {
    R_SELF_OFFSET = 0,     /* rb_ractor_t.pub.self */
    R_ID_OFFSET = 8,       /* rb_ractor_t.pub.id */
    R_SCAN_MAX = 4096,     /* how far into rb_ractor_t threads.main is looked for */
};

typedef struct ractor_row {
    _Atomic VALUE key;     /* ractor_key(), 1: the "(other Ractors)" row; 0: unused */
    _Atomic int ready;     /* label written */
    char label[RP_RACTOR_NAME_MAX + 16];
    _Atomic int64_t ns[RP_RECORDINGS];
    _Atomic int64_t allocs[RP_RECORDINGS];
} ractor_row;

static ractor_row rows[RP_RACTORS_MAX];
static _Atomic uint32_t seen; /* Ractors numbered in order seen, without the layout */
static bool layout;
static char *main_ractor; /* the main Ractor's rb_ractor_t, with the layout */
static size_t name_offset; /* of rb_ractor_t.name, after threads.main and thgroup_default */

/* The stretches of Ractors' threads running now, one slot per native
 * thread that has run one: the hooks of that native thread open and
 * close its stretch, and a profile being written counts what the open
 * ones have so far (a Ractor computing in one stretch from its start
 * would otherwise show nothing until its thread exits, which can be after
 * the main Ractor took its result and wrote its profile). A slot's lock
 * is held for a clock read. */
#define STRETCHES_MAX 256
typedef struct stretch {
    atomic_flag lock;
    _Atomic bool used;       /* claimed by a native thread, freed at its exit */
    int row;                 /* the Ractor running on it, -1: none */
    clockid_t cpu_clock;     /* the native thread's CPU clock, or -1 */
    int64_t cpu_ns, wall_ns; /* where the time not yet counted starts */
} stretch;

static stretch stretches[STRETCHES_MAX];
static __thread int own_stretch = -1; /* this native thread's slot, -1: none */
static pthread_key_t stretch_key;     /* frees the slot at the native thread's exit */
static bool stretch_key_made;

static void free_stretch(void *slot);


/* The thread's Ractor (layout): read from the thread itself, as the hook
 * that starts a thread runs before Ruby makes it the native thread's
 * current one. */
static char *ractor_of(VALUE thread)
{
    return *(char **)(rp_thread_struct(thread) + RP_TH_RACTOR_OFFSET);
}

/* Whether `r` is a Ractor's structure: its Ractor object (a typed data
 * object of type "ractor") wraps it. */
static bool is_ractor(char *r)
{
    VALUE self = r ? *(VALUE *)(r + R_SELF_OFFSET) : 0;
    if (!self || RB_SPECIAL_CONST_P(self) || !RB_TYPE_P(self, T_DATA) || !RTYPEDDATA_P(self))
        return false;
    const char *type = RTYPEDDATA_TYPE(self)->wrap_struct_name;
    return type && strcmp(type, "ractor") == 0 && RTYPEDDATA_GET_DATA(self) == r;
}

/* ThreadGroup::Default, found as constants are, never by evaluating Ruby
 * source: this runs in postponed jobs too (an attach's start), where
 * compiling code can crash Ruby — at the end of a `load`, for one. */
static VALUE default_thread_group(VALUE unused)
{
    (void)unused;
    VALUE thread_group = rb_const_get(rb_cObject, rb_intern("ThreadGroup"));
    return rb_const_get(thread_group, rb_intern("Default"));
}

/* The main Ractor's structures point back at each other through the
 * offsets: its thread's ractor is wrapped by its Ractor object, its id is
 * 1, and its threads.main (found by scanning) is followed by
 * ThreadGroup::Default and a nil name. */
static bool layout_holds(void)
{
    char *th = rp_checked_current_thread_struct();
    if (!th)
        return false;
    int state = 0;
    VALUE group = rb_protect(default_thread_group, Qnil, &state);
    if (state) {
        rb_set_errinfo(Qnil);
        return false;
    }
    char *r = *(char **)(th + RP_TH_RACTOR_OFFSET);
    if (!is_ractor(r) || *(uint32_t *)(r + R_ID_OFFSET) != 1)
        return false;
    for (size_t off = R_ID_OFFSET; off + 3 * sizeof(VALUE) <= R_SCAN_MAX; off += sizeof(void *)) {
        if (*(char **)(r + off) == th && *(VALUE *)(r + off + sizeof(VALUE)) == group &&
            *(VALUE *)(r + off + 2 * sizeof(VALUE)) == Qnil) {
            name_offset = off + 2 * sizeof(VALUE);
            main_ractor = r;
            return true;
        }
    }
    return false;
}

_Atomic bool rp_ractors_others_ran;
static VALUE main_thread; /* the main Ractor's main Thread */

bool rp_ractors_current_is_main(void)
{
    return rb_thread_main() == main_thread;
}

void rp_ractors_init(void)
{
    main_thread = rb_thread_main(); /* at start: on the main Ractor */
    layout = layout_holds();
    stretch_key_made = pthread_key_create(&stretch_key, free_stretch) == 0;
}

/* "Ractor #<id>", and its name when it has one. */
static void write_label(ractor_row *row, VALUE thread)
{
    char name[RP_RACTOR_NAME_MAX] = "";
    uint32_t id;
    if (layout) {
        char *r = ractor_of(thread);
        id = *(uint32_t *)(r + R_ID_OFFSET);
        VALUE v = *(VALUE *)(r + name_offset);
        if (RB_TYPE_P(v, T_STRING)) {
            long len = RSTRING_LEN(v);
            if (len >= (long)sizeof(name))
                len = sizeof(name) - 1;
            memcpy(name, RSTRING_PTR(v), (size_t)len);
            name[len] = '\0';
        }
    } else {
        id = atomic_fetch_add(&seen, 1) + 2; /* as Ruby numbers them: the main Ractor is #1 */
    }
    snprintf(row->label, sizeof(row->label), name[0] ? "Ractor #%u %s" : "Ractor #%u", id, name);
    atomic_store_explicit(&row->ready, 1, memory_order_release);
}

/* The row of the Ractor `key` names, claimed when new. Past the rows,
 * the last one, "(other Ractors)", counts every further Ractor: a program
 * that makes Ractors without end keeps a bounded table. */
static int row_of(VALUE key, VALUE thread)
{
    for (int i = 0; i < RP_RACTORS_MAX - 1; i++) {
        VALUE k = atomic_load_explicit(&rows[i].key, memory_order_acquire);
        if (k == key)
            return i;
        if (k == 0) {
            VALUE expected = 0;
            if (atomic_compare_exchange_strong(&rows[i].key, &expected, key)) {
                write_label(&rows[i], thread);
                return i;
            }
            if (expected == key)
                return i;
        }
    }
    ractor_row *other = &rows[RP_RACTORS_MAX - 1];
    VALUE expected = 0;
    if (atomic_compare_exchange_strong(&other->key, &expected, (VALUE)1)) {
        snprintf(other->label, sizeof(other->label), "(other Ractors)");
        atomic_store_explicit(&other->ready, 1, memory_order_release);
    }
    return RP_RACTORS_MAX - 1;
}

/* What names a thread's Ractor in the rows: with the layout its structure
 * and its id together — a Ractor made where a finished one's structure
 * was freed is another Ractor — else its main thread. */
static VALUE ractor_key(VALUE thread)
{
    if (!layout)
        return rb_thread_main();
    char *r = ractor_of(thread);
    return (VALUE)((uintptr_t)r ^ ((uint64_t)*(uint32_t *)(r + R_ID_OFFSET) << 48));
}

static void lock_stretch(stretch *st)
{
    while (atomic_flag_test_and_set_explicit(&st->lock, memory_order_acquire))
        ; /* held for one clock read */
}

static void unlock_stretch(stretch *st)
{
    atomic_flag_clear_explicit(&st->lock, memory_order_release);
}

/* Slot locked: adds the time since the stretch's start to its Ractor's
 * row, for every accepting recording, and moves the start to now. */
static void count_stretch(stretch *st, int64_t cpu_now, int64_t wall_now)
{
    ractor_row *row = &rows[st->row];
    int64_t cpu = cpu_now >= 0 ? cpu_now - st->cpu_ns : 0, wall = wall_now - st->wall_ns;
    for (int i = 0; i < RP_RECORDINGS; i++) {
        const rp_recording *r = rp_recording_get((rp_rec_id)i);
        if (atomic_load_explicit(&r->accepting, memory_order_relaxed))
            atomic_fetch_add_explicit(&row->ns[i], r->cfg.mode == RP_MODE_CPU ? cpu : wall,
                                      memory_order_relaxed);
    }
    if (cpu_now >= 0)
        st->cpu_ns = cpu_now;
    st->wall_ns = wall_now;
}

/* Native thread exit (pthread key destructor): its slot is free again. */
static void free_stretch(void *slot)
{
    stretch *st = &stretches[(intptr_t)slot - 1];
    lock_stretch(st);
    if (st->row >= 0)
        count_stretch(st, rp_clock_ns(CLOCK_THREAD_CPUTIME_ID), rp_clock_ns(CLOCK_MONOTONIC));
    st->row = -1;
    atomic_store(&st->used, false);
    unlock_stretch(st);
    own_stretch = -1;
}

/* This native thread's slot, claimed on first use; NULL when all are taken. */
static stretch *claim_stretch(void)
{
    if (own_stretch >= 0)
        return &stretches[own_stretch];
    for (int i = 0; i < STRETCHES_MAX; i++) {
        bool expected = false;
        if (atomic_load(&stretches[i].used) || !atomic_compare_exchange_strong(&stretches[i].used, &expected, true))
            continue;
        stretch *st = &stretches[i];
        st->row = -1;
        if (pthread_getcpuclockid(pthread_self(), &st->cpu_clock) != 0)
            st->cpu_clock = (clockid_t)-1; /* its CPU time counted by its own hooks only */
        own_stretch = i;
        if (stretch_key_made)
            pthread_setspecific(stretch_key, (void *)(intptr_t)(i + 1));
        return st;
    }
    return NULL;
}

int rp_ractors_is_main(VALUE thread)
{
    return layout ? ractor_of(thread) == main_ractor : -1;
}

void rp_ractors_resumed(VALUE thread)
{
    if (!atomic_load_explicit(&rp_ractors_others_ran, memory_order_relaxed))
        atomic_store(&rp_ractors_others_ran, true);
    int row = row_of(ractor_key(thread), thread);
    stretch *st = row < 0 ? NULL : claim_stretch();
    if (!st) {
        rp_ractors_leave();
        return;
    }
    int64_t cpu = rp_clock_ns(CLOCK_THREAD_CPUTIME_ID), wall = rp_clock_ns(CLOCK_MONOTONIC);
    lock_stretch(st);
    if (st->row >= 0)
        count_stretch(st, cpu, wall);
    st->row = row;
    st->cpu_ns = cpu;
    st->wall_ns = wall;
    unlock_stretch(st);
}

void rp_ractors_leave(void)
{
    if (own_stretch < 0)
        return;
    stretch *st = &stretches[own_stretch];
    lock_stretch(st);
    if (st->row >= 0) {
        count_stretch(st, rp_clock_ns(CLOCK_THREAD_CPUTIME_ID), rp_clock_ns(CLOCK_MONOTONIC));
        st->row = -1;
    }
    unlock_stretch(st);
}

void rp_ractors_settle(void)
{
    int64_t wall = rp_clock_ns(CLOCK_MONOTONIC);
    for (int i = 0; i < STRETCHES_MAX; i++) {
        stretch *st = &stretches[i];
        if (!atomic_load_explicit(&st->used, memory_order_acquire))
            continue;
        lock_stretch(st);
        if (st->row >= 0 && i != own_stretch) {
            struct timespec ts;
            int64_t cpu = st->cpu_clock != (clockid_t)-1 && clock_gettime(st->cpu_clock, &ts) == 0
                              ? rp_timespec_ns(ts) : -1;
            count_stretch(st, cpu, wall);
        }
        unlock_stretch(st);
    }
}

void rp_ractors_totals(rp_rec_id id, int64_t *out)
{
    rp_ractors_settle();
    for (int i = 0; i < RP_RACTORS_MAX; i++)
        out[i] = atomic_load_explicit(&rows[i].ns[id], memory_order_relaxed);
}

/* Its thread is running on this native thread, whose stretch names its
 * row since its RESUMED (and only this native thread changes that). */
void rp_ractors_count_allocation(void)
{
    int row = own_stretch >= 0 ? stretches[own_stretch].row : -1;
    if (row < 0)
        return;
    for (int i = 0; i < RP_RECORDINGS; i++) {
        const rp_recording *r = rp_recording_get((rp_rec_id)i);
        if (atomic_load_explicit(&r->accepting, memory_order_relaxed) && r->cfg.alloc_rate > 0)
            atomic_fetch_add_explicit(&rows[row].allocs[i], 1, memory_order_relaxed);
    }
}

void rp_ractors_alloc_totals(rp_rec_id id, int64_t *out)
{
    for (int i = 0; i < RP_RACTORS_MAX; i++)
        out[i] = atomic_load_explicit(&rows[i].allocs[id], memory_order_relaxed);
}

const char *rp_ractors_label(size_t i)
{
    if (i >= RP_RACTORS_MAX || !atomic_load_explicit(&rows[i].ready, memory_order_acquire))
        return NULL;
    return rows[i].label;
}

void rp_ractors_after_fork(void)
{
    memset(rows, 0, sizeof(rows));
    memset(stretches, 0, sizeof(stretches));
    atomic_store(&seen, 0);
    own_stretch = -1;
    if (stretch_key_made)
        pthread_setspecific(stretch_key, NULL);
}
