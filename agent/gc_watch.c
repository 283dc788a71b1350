/*
 * agent/gc_watch.c — the agent's hook on Ruby's GC phases. See
 * gc_watch.h.
 *
 * Why GC_EXIT after GC_END_MARK is the moment: Ruby's marking ends inside
 * a GC step, which goes on to start the sweep (freeing the dead objects
 * of the first pages, or of all with an immediate sweep) and then exits.
 * No object is allocated inside GC, so at that exit a dead object is
 * either T_NONE/T_ZOMBIE already or unmarked on a page still to be swept
 * — both of which rb_objspace_garbage_object_p reports — and a live one
 * is marked (an old object is marked in a minor GC too). Objects that
 * compaction moved have been re-keyed by their owners' compaction
 * callbacks before the step exits.
 */
#include "gc_watch.h"

#define WATCHERS_MAX 4

static uint64_t epoch, major_epoch;
static bool gc_is_major = true;
static bool marking_done;
static bool hooked;
static VALUE sym_major_by = Qnil;
static rp_gc_watcher *watchers[WATCHERS_MAX];
static int watcher_count;

/* GC hook — inside GC, GVL held. */
static void on_gc_phase(rb_event_flag_t event, VALUE data, VALUE self, ID mid, VALUE klass)
{
    (void)data, (void)self, (void)mid, (void)klass;
    if (event & RUBY_INTERNAL_EVENT_GC_EXIT) {
        if (!marking_done)
            return;
        marking_done = false;
        for (int i = 0; i < watcher_count; i++)
            watchers[i](gc_is_major);
        return;
    }
    if (event & RUBY_INTERNAL_EVENT_GC_START)
        gc_is_major = sym_major_by != Qnil && rb_gc_latest_gc_info(sym_major_by) != Qnil;
    if (event & RUBY_INTERNAL_EVENT_GC_END_MARK)
        marking_done = true;
    epoch++;
    if (gc_is_major)
        major_epoch++;
}

void rp_gc_watch_init(void)
{
    if (hooked)
        return;
    hooked = true;
    /* Ruby makes its GC info symbols at the first call, which must not be
     * inside GC. */
    sym_major_by = ID2SYM(rb_intern("major_by"));
    rb_gc_latest_gc_info(sym_major_by);
    rb_add_event_hook(on_gc_phase,
                      RUBY_INTERNAL_EVENT_GC_START | RUBY_INTERNAL_EVENT_GC_END_MARK | RUBY_INTERNAL_EVENT_GC_EXIT,
                      Qnil);
}

uint64_t rp_gc_watch_epoch(void)
{
    return epoch;
}

uint64_t rp_gc_watch_major_epoch(void)
{
    return major_epoch;
}

void rp_gc_watch_after_marking(rp_gc_watcher *fn)
{
    for (int i = 0; i < watcher_count; i++)
        if (watchers[i] == fn)
            return;
    if (watcher_count < WATCHERS_MAX)
        watchers[watcher_count++] = fn;
}

bool rp_gc_watch_is_dead(VALUE obj)
{
    return rb_objspace_garbage_object_p && rb_objspace_garbage_object_p(obj);
}
