/*
 * agent/base/ruby_layout.h — what the agent reads of Ruby's own structures.
 *
 * Owns: the offsets into rb_thread_t that libruby exports nothing for
 * (vm_core.h of Ruby 3.4 and 4.0, the same in both), and the first check
 * every user of them makes on the running Ruby: it is a version whose
 * layouts were checked (ruby_version.h), and the current Thread's
 * structure points back at the Thread through `self`; and where the
 * default GC of Ruby 3.4 and 4.0 (gc/default/default.c, the same struct
 * heap_page in 3.4.5 and 4.0.1; 4.1 moves the mark bits) keeps an
 * object's mark bit. Each user
 * checks the rest of what it reads itself (gvl_holder.c, ractors.c,
 * gc_watch.c) and does without it when a check fails. Header-only.
 */
#ifndef RPERF_AGENT_RUBY_LAYOUT_H
#define RPERF_AGENT_RUBY_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "ruby_api.h"
#include "ruby_version.h"

enum {
    RP_TH_SELF_OFFSET = 16,   /* rb_thread_t.self, after lt_node */
    RP_TH_RACTOR_OFFSET = 24, /* rb_thread_t.ractor */
    RP_TH_EC_OFFSET = 48,     /* rb_thread_t.ec, after ractor, vm, nt */
};

/* The heap of Ruby 3.4's and 4.0's default GC: objects live in 64 KB pages aligned
 * to their size, whose first word points to the page's struct heap_page;
 * an object's bit in a page bitmap is its offset in the page in units of
 * the base slot (40 bytes: RBasic and three VALUEs, no debug overhead).
 * struct heap_page: five shorts, the flags, five pointers (heap,
 * free_next, body at 32, start at 40, freelist), a list node (16 bytes),
 * then the bitmaps, each 26 words: wb_unprotected_bits, mark_bits. What
 * GC::INTERNAL_CONSTANTS says of the sizes is checked against these. */
enum {
    RP_HEAP_PAGE_SIZE = 1 << 16,
    RP_HEAP_BASE_SLOT_SIZE = 40,
    RP_HEAP_BITMAP_WORDS = 26,
    RP_HEAP_PAGE_BODY_OFFSET = 32,
    RP_HEAP_PAGE_START_OFFSET = 40,
    RP_HEAP_PAGE_MARK_BITS_OFFSET = 72 + RP_HEAP_BITMAP_WORDS * 8,
};

/* The struct heap_page of the page holding heap object `obj`. */
static inline const char *rp_heap_page_of(VALUE obj)
{
    return *(const char *const *)(obj & ~(VALUE)(RP_HEAP_PAGE_SIZE - 1));
}

/* Whether the page struct of `obj` is what the layout says: its body is
 * the page `obj` is in, and its slots start before `obj`. */
static inline bool rp_heap_page_matches(VALUE obj)
{
    const char *page = rp_heap_page_of(obj);
    VALUE body = obj & ~(VALUE)(RP_HEAP_PAGE_SIZE - 1);
    return page && *(const VALUE *)(page + RP_HEAP_PAGE_BODY_OFFSET) == body &&
           *(const VALUE *)(page + RP_HEAP_PAGE_START_OFFSET) > body &&
           *(const VALUE *)(page + RP_HEAP_PAGE_START_OFFSET) <= obj;
}

/* The mark bit of heap object `obj`. */
static inline bool rp_heap_marked(VALUE obj)
{
    const VALUE *bits = (const VALUE *)(rp_heap_page_of(obj) + RP_HEAP_PAGE_MARK_BITS_OFFSET);
    size_t n = (obj & (RP_HEAP_PAGE_SIZE - 1)) / RP_HEAP_BASE_SLOT_SIZE;
    return (bits[n / 64] >> (n % 64)) & 1;
}

/* The rb_thread_t behind a Thread object. */
static inline char *rp_thread_struct(VALUE thread)
{
    return (char *)RTYPEDDATA_GET_DATA(thread);
}

/* Ruby thread with the GVL: the current thread's rb_thread_t, when this
 * Ruby's layouts were checked and its `self` is the Thread; else NULL. */
static inline char *rp_checked_current_thread_struct(void)
{
    if (!rp_ruby_layout_known())
        return NULL;
    VALUE thread = rb_thread_current();
    if (!RB_TYPE_P(thread, T_DATA) || !RTYPEDDATA_P(thread))
        return NULL;
    char *th = rp_thread_struct(thread);
    return th && *(VALUE *)(th + RP_TH_SELF_OFFSET) == thread ? th : NULL;
}

#endif
