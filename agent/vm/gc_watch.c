/*
 * agent/vm/gc_watch.c — the agent's hook on Ruby's GC phases. See
 * gc_watch.h.
 *
 * Why the end of marking is the moment: Ruby's marking ends inside a GC
 * step (gc_marks_finish), which calls the GC_END_MARK hooks and only then
 * sweeps (freeing the unmarked) and, for GC.compact or auto-compaction,
 * moves the marked — filling slots it has just freed with them. Later, a
 * freed object's slot may hold another object; at GC_END_MARK it still
 * holds the dead one, unmarked, and every live object is marked (an old
 * one in a minor GC too: its bit is kept from one GC to the next).
 */
#include "gc_watch.h"

#include <string.h>

#include "../base/ruby_layout.h"

#define WATCHERS_MAX 4
#define PROBES 8 /* objects made to die for the layout check */

static bool hooked;
static size_t last_count; /* rb_gc_count() at the last marking end seen */
static bool marking_seen; /* a GC the hook saw start has not ended its marking */
static size_t last_major;  /* major GCs then */
static bool missed_major;
static VALUE sym_major_gc_count = Qnil;
static VALUE sym_major_by = Qnil;
static rp_gc_watcher *watchers[WATCHERS_MAX];
static int watcher_count;

/* The layout check: unknown until the first marking end with its probes
 * ready, then known to hold or not. The probes are objects the agent
 * makes and drops at start, kept here as numbers (this memory is no GC
 * root), so the first marking finds them dead. */
static enum { LAYOUT_UNCHECKED, LAYOUT_HOLDS, LAYOUT_FAILS } layout = LAYOUT_UNCHECKED;
static uintptr_t probes[PROBES];
static bool constants_hold;

/* Main thread at start: GC::INTERNAL_CONSTANTS says the sizes ruby_layout.h
 * assumes. */
static bool size_is(VALUE constants, const char *key, long want)
{
    VALUE v = rb_hash_aref(constants, ID2SYM(rb_intern(key)));
    return FIXNUM_P(v) && FIX2LONG(v) == want;
}

/* The GC is Ruby's own: a modular one (RUBY_GC_LIBRARY, e.g. MMTk) has
 * no heap pages at all. GC.config says the same, but is not defined yet
 * when the agent starts. */
static bool default_gc(void)
{
    const char *name = rb_gc_active_gc_name ? rb_gc_active_gc_name() : NULL;
    return name && strcmp(name, "default") == 0;
}

static bool check_constants(void)
{
    if (!rp_ruby_layout_known() || !default_gc())
        return false;
    VALUE gc = rb_const_get(rb_cObject, rb_intern("GC"));
    if (!RTEST(rb_const_defined(gc, rb_intern("INTERNAL_CONSTANTS"))))
        return false;
    VALUE c = rb_const_get(gc, rb_intern("INTERNAL_CONSTANTS"));
    return RB_TYPE_P(c, T_HASH) && size_is(c, "BASE_SLOT_SIZE", RP_HEAP_BASE_SLOT_SIZE) &&
           size_is(c, "RVALUE_OVERHEAD", 0) && size_is(c, "HEAP_PAGE_SIZE", RP_HEAP_PAGE_SIZE) &&
           size_is(c, "HEAP_PAGE_BITMAP_SIZE", RP_HEAP_BITMAP_WORDS * 8);
}

/* Not inlined, so that no copy of a probe's address is left in a live
 * frame or register for the GC's conservative scan to find. */
__attribute__((noinline)) static void make_probes(void)
{
    for (int i = 0; i < PROBES; i++)
        probes[i] = (uintptr_t)rb_ary_new() ^ UINTPTR_MAX;
}

/* Inside GC, at the first marking end: a class is marked and at least one
 * probe is not (all marked: a probe left on a stack, or made during an
 * incremental marking — not proof of a wrong layout, but no proof of a
 * right one either). */
static void check_layout(void)
{
    bool live_ok = rp_heap_page_matches(rb_cObject) && rp_heap_marked(rb_cObject);
    bool dead_seen = false;
    for (int i = 0; i < PROBES && live_ok; i++) {
        VALUE probe = (VALUE)(probes[i] ^ UINTPTR_MAX);
        if (!rp_heap_page_matches(probe))
            live_ok = false;
        else if (!rp_heap_marked(probe))
            dead_seen = true;
    }
    layout = constants_hold && live_ok && dead_seen ? LAYOUT_HOLDS : LAYOUT_FAILS;
}

/* GC hook — inside GC, GVL held, at the start of a GC and at the end of
 * its marking. */
static void on_marking_end(rb_event_flag_t event, VALUE data, VALUE self, ID mid, VALUE klass)
{
    (void)data, (void)self, (void)mid, (void)klass;
    if (event == RUBY_INTERNAL_EVENT_GC_START) {
        marking_seen = true;
        return;
    }
    marking_seen = false;
    if (layout == LAYOUT_UNCHECKED)
        check_layout();
    if (watcher_count < 0)
        return; /* told already that marks cannot be read */
    size_t count = rb_gc_count(), majors = rp_gc_watch_majors();
    bool major = rb_gc_latest_gc_info(sym_major_by) != Qnil;
    rp_gc_marks marks = layout == LAYOUT_FAILS ? RP_MARKS_UNREADABLE
                        : count - last_count > 1 ? RP_MARKS_MISSED
                                                 : RP_MARKS_READABLE;
    missed_major = majors - last_major > (major ? 1u : 0u);
    last_count = count;
    last_major = majors;
    for (int i = 0; i < watcher_count; i++)
        watchers[i](major, marks);
    if (marks == RP_MARKS_UNREADABLE)
        watcher_count = -1;
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
    sym_major_gc_count = ID2SYM(rb_intern("major_gc_count"));
    constants_hold = check_constants();
    if (constants_hold)
        make_probes();
    else
        layout = LAYOUT_FAILS;
    /* A GC under way (its marking in stretches between the program's)
     * counts as seen: its marking ends next. */
    last_count = rb_gc_count();
    last_major = rp_gc_watch_majors();
    rb_add_event_hook(on_marking_end, RUBY_INTERNAL_EVENT_GC_START | RUBY_INTERNAL_EVENT_GC_END_MARK, Qnil);
}

bool rp_gc_watch_missed_now(void)
{
    return hooked && rb_gc_count() - last_count > (marking_seen ? 1u : 0u);
}

void rp_gc_watch_at_marking_end(rp_gc_watcher *fn)
{
    for (int i = 0; i < watcher_count; i++)
        if (watchers[i] == fn)
            return;
    if (watcher_count >= 0 && watcher_count < WATCHERS_MAX)
        watchers[watcher_count++] = fn;
}

bool rp_gc_watch_marks_known(void)
{
    return layout != LAYOUT_FAILS;
}

size_t rp_gc_watch_majors(void)
{
    return rb_gc_stat(sym_major_gc_count);
}

bool rp_gc_watch_missed_major(void)
{
    return missed_major;
}

bool rp_gc_watch_marked(VALUE obj)
{
    return rp_heap_marked(obj);
}
