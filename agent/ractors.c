/*
 * agent/ractors.c — Ractors' time. See ractors.h.
 */
#include "ractors.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../common/clock.h"

/* Ruby 3.4's vm_core.h and ractor_core.h, checked by layout_holds(). */
enum {
    TH_SELF_OFFSET = 16,   /* rb_thread_t.self, after lt_node */
    TH_RACTOR_OFFSET = 24, /* rb_thread_t.ractor */
    R_SELF_OFFSET = 0,     /* rb_ractor_t.pub.self */
    R_ID_OFFSET = 8,       /* rb_ractor_t.pub.id */
    R_SCAN_MAX = 4096,     /* how far into rb_ractor_t threads.main is looked for */
};

typedef struct ractor_row {
    _Atomic VALUE key;     /* the Ractor's main thread (rb_thread_main), 0: unused */
    _Atomic int ready;     /* label written */
    char label[RP_RACTOR_NAME_MAX + 16];
    _Atomic int64_t ns[RP_RECORDINGS];
} ractor_row;

static ractor_row rows[RP_RACTORS_MAX];
static _Atomic uint32_t seen; /* Ractors numbered in order seen, without the layout */
static bool layout;
static size_t name_offset; /* of rb_ractor_t.name, after threads.main and thgroup_default */

/* This native thread's running stretch of a Ractor's thread. */
static __thread struct {
    int row; /* -1: none */
    int64_t cpu_ns, wall_ns;
} stretch = {-1, 0, 0};

static char *thread_struct(VALUE thread)
{
    return (char *)RTYPEDDATA_GET_DATA(thread);
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

/* The main Ractor's structures point back at each other through the
 * offsets: its thread's ractor is wrapped by its Ractor object, its id is
 * 1, and its threads.main (found by scanning) is followed by
 * ThreadGroup::Default and a nil name. */
static bool layout_holds(void)
{
    if (!ruby_api_version || ruby_api_version[0] != 3 || ruby_api_version[1] != 4)
        return false;
    int state = 0;
    VALUE group = rb_eval_string_protect("ThreadGroup::Default", &state);
    if (state)
        return false;
    VALUE thread = rb_thread_current();
    if (!RB_TYPE_P(thread, T_DATA) || !RTYPEDDATA_P(thread))
        return false;
    char *th = thread_struct(thread);
    if (!th || *(VALUE *)(th + TH_SELF_OFFSET) != thread)
        return false;
    char *r = *(char **)(th + TH_RACTOR_OFFSET);
    if (!is_ractor(r) || *(uint32_t *)(r + R_ID_OFFSET) != 1)
        return false;
    for (size_t off = R_ID_OFFSET; off + 3 * sizeof(VALUE) <= R_SCAN_MAX; off += sizeof(void *)) {
        if (*(char **)(r + off) == th && *(VALUE *)(r + off + sizeof(VALUE)) == group &&
            *(VALUE *)(r + off + 2 * sizeof(VALUE)) == Qnil) {
            name_offset = off + 2 * sizeof(VALUE);
            return true;
        }
    }
    return false;
}

void rp_ractors_init(void)
{
    layout = layout_holds();
}

/* "Ractor #<id>", and its name when it has one. */
static void write_label(ractor_row *row, VALUE thread)
{
    char name[RP_RACTOR_NAME_MAX] = "";
    uint32_t id;
    if (layout) {
        char *r = *(char **)(thread_struct(thread) + TH_RACTOR_OFFSET);
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

/* The row of the Ractor whose main thread is `key`, claimed when new;
 * -1 when the table is full. */
static int row_of(VALUE key, VALUE thread)
{
    for (int i = 0; i < RP_RACTORS_MAX; i++) {
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
    return -1;
}

void rp_ractors_resumed(VALUE thread)
{
    rp_ractors_leave();
    int row = row_of(rb_thread_main(), thread);
    if (row < 0)
        return;
    stretch.row = row;
    stretch.cpu_ns = rp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    stretch.wall_ns = rp_clock_ns(CLOCK_MONOTONIC);
}

void rp_ractors_leave(void)
{
    if (stretch.row < 0)
        return;
    ractor_row *row = &rows[stretch.row];
    stretch.row = -1;
    int64_t cpu = rp_clock_ns(CLOCK_THREAD_CPUTIME_ID) - stretch.cpu_ns;
    int64_t wall = rp_clock_ns(CLOCK_MONOTONIC) - stretch.wall_ns;
    for (int i = 0; i < RP_RECORDINGS; i++) {
        const rp_recording *r = rp_recording_get((rp_rec_id)i);
        if (atomic_load_explicit(&r->accepting, memory_order_relaxed))
            atomic_fetch_add_explicit(&row->ns[i], r->cfg.mode == RP_MODE_CPU ? cpu : wall,
                                      memory_order_relaxed);
    }
}

void rp_ractors_totals(rp_rec_id id, int64_t *out)
{
    for (int i = 0; i < RP_RACTORS_MAX; i++)
        out[i] = atomic_load_explicit(&rows[i].ns[id], memory_order_relaxed);
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
    atomic_store(&seen, 0);
    stretch.row = -1;
}
