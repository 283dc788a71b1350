/*
 * agent/vm/threads.c — per-thread records. See threads.h.
 *
 * Records are created with the GVL held (postponed job) and handed back by
 * the EXITED thread event hook, which runs without the GVL: that hook only
 * ends the thread's Ractor stretch (ractors.h) and
 * pushes the record on a lock-free free list (no lock, no allocation); the
 * next thread seen pops it. There is one consumer (the GVL holder), so the
 * Treiber stack cannot suffer ABA.
 */
#include "threads.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "gvl_holder.h"
#include "../base/log.h"
#include "ractors.h"

static rb_internal_thread_specific_key_t thread_key;
static _Atomic(rp_thread *) free_records;
static uint32_t generation = 1;
static uint32_t next_thread_seq = 1;
static size_t records_allocated;
static rp_thread *all_records; /* linked by next_record; only grows, GVL held */

/* EXITED hook — runs on the exiting thread WITHOUT the GVL. Touches only the
 * thread's own record, the atomic free list, and gvl_holder's lock. */
static void on_thread_exited(rb_event_flag_t event, const rb_internal_thread_event_data_t *data,
                             void *user_data)
{
    (void)event;
    (void)user_data;
    rp_ractors_leave();
    rp_gvl_holder_exited(data->thread);
    rp_thread *t = rb_internal_thread_specific_get(data->thread, thread_key);
    if (!t)
        return;
    rb_internal_thread_specific_set(data->thread, thread_key, NULL);
    rp_thread *head = atomic_load_explicit(&free_records, memory_order_relaxed);
    do {
        t->next_free = head;
    } while (!atomic_compare_exchange_weak_explicit(&free_records, &head, t, memory_order_release,
                                                    memory_order_relaxed));
}

static VALUE create_key(VALUE unused)
{
    (void)unused;
    thread_key = rb_internal_thread_specific_key_create();
    return Qnil;
}

int rp_threads_init(void)
{
    int state = 0;
    /* Raises ThreadError when the process already uses all keys. */
    rb_protect(create_key, Qnil, &state);
    if (state) {
        rp_log("cannot profile: no free thread-specific storage key in this Ruby");
        return -1;
    }
    /* Stays installed for the life of the process: recycling a record is
     * right whether or not a profile is being taken. */
    rb_internal_thread_add_event_hook(on_thread_exited, RUBY_INTERNAL_THREAD_EVENT_EXITED, NULL);
    return 0;
}

static rp_thread *pop_free_record(void)
{
    rp_thread *head = atomic_load_explicit(&free_records, memory_order_acquire);
    while (head && !atomic_compare_exchange_weak_explicit(&free_records, &head, head->next_free,
                                                          memory_order_acquire,
                                                          memory_order_acquire))
        ;
    return head;
}

rp_thread *rp_threads_current(bool *is_new)
{
    VALUE thread = rb_thread_current();
    rp_thread *t = rb_internal_thread_specific_get(thread, thread_key);
    *is_new = false;
    if (t && t->generation == generation)
        return t;
    if (!t) {
        t = pop_free_record();
        if (!t) {
            t = malloc(sizeof(*t));
            if (!t)
                return NULL;
            records_allocated++;
            t->next_record = all_records;
            all_records = t;
            t->spans = NULL; /* a recycled record keeps its requests' buffers */
            t->last_frames = NULL;
            t->last_lines = NULL;
        }
        rb_internal_thread_specific_set(thread, thread_key, t);
        t->label_set = 0;
        t->profile_depth = 0;
        t->acct_blocked_ns = t->acct_wait_ns = t->acct_gc_ns = 0;
    }
    memset(t->clock, 0, sizeof(t->clock)); /* epoch 0: none */
    rp_thread_cpu_reset(&t->cpu);
    t->last_depth = 0;
    t->suspended_ns = 0;
    t->ready_ns = 0;
    t->resumed_ns = 0;
    t->cpu_seen_ns = t->cpu_seen_at_ns = t->suspended_cpu_ns = 0;
    t->sampled = false;
    t->thread_seq = next_thread_seq++;
    t->generation = generation;
    t->thread = thread;
    t->next_free = NULL;
    *is_new = true;
    return t;
}

rp_thread *rp_threads_find(VALUE thread)
{
    rp_thread *t = rb_internal_thread_specific_get(thread, thread_key);
    return t && t->generation == generation ? t : NULL;
}

void rp_threads_each(void (*fn)(rp_thread *t, void *arg), void *arg)
{
    for (rp_thread *t = all_records; t; t = t->next_record)
        fn(t, arg);
}

size_t rp_threads_allocated(void)
{
    return records_allocated;
}

uint32_t rp_threads_detected(void)
{
    return next_thread_seq - 1;
}

void rp_threads_new_generation(void)
{
    generation++;
    next_thread_seq = 1;
}
