/*
 * agent/vm/liveness.c — tags that say how long a seen object keeps its
 * address, and the caches they make safe. See liveness.h.
 */
#include "liveness.h"

#include "../../common/hash.h"
#include "gc_watch.h"

/* A tag: the count it holds for, shifted, and its kind. */
enum { TAG_YOUNG = 0, TAG_OLD = 1, TAG_MARKING = 2, TAG_KIND = 3 };

static VALUE sym_state = Qnil, sym_marking = Qnil;
static size_t seen_count = SIZE_MAX, seen_major; /* rb_gc_count() and major GCs then */

void rp_liveness_init(void)
{
    if (sym_state != Qnil)
        return;
    /* Ruby makes its GC info symbols at the first call, which must not
     * be inside an allocation; the major GC count is gc_watch.h's. */
    sym_state = ID2SYM(rb_intern("state"));
    sym_marking = ID2SYM(rb_intern("marking"));
    rb_gc_latest_gc_info(sym_state);
}

rp_live_now rp_live_now_get(void)
{
    size_t count = rb_gc_count();
    if (count != seen_count) {
        seen_count = count;
        seen_major = rp_gc_watch_majors();
    }
    return (rp_live_now){(uint64_t)count << 2 | TAG_YOUNG, (uint64_t)seen_major << 2 | TAG_OLD,
                         (uint64_t)count << 2 | TAG_MARKING, -1};
}

static bool marking_now(rp_live_now *now)
{
    if (now->marking < 0)
        now->marking = rb_gc_latest_gc_info(sym_state) == sym_marking;
    return now->marking;
}

bool rp_live_tag_holds(uint64_t tag, rp_live_now *now)
{
    switch (tag & TAG_KIND) {
    case TAG_OLD:
        return tag == now->old;
    case TAG_MARKING:
        return tag == now->in_marking && marking_now(now);
    default:
        return tag == now->young;
    }
}

bool rp_live_tag(rp_live_now *now, bool old, uint64_t *tag)
{
    if (rb_during_gc())
        return false;
    *tag = marking_now(now) ? now->in_marking : old ? now->old : now->young;
    return true;
}

static rp_live_entry *slot_of(rp_live_entry *slots, size_t count, VALUE obj)
{
    return &slots[rp_hash_mix64((uint64_t)obj) & (count - 1)];
}

bool rp_live_cache_find(rp_live_entry *slots, size_t count, VALUE obj, rp_live_now *now, uint32_t *id)
{
    rp_live_entry *e = slot_of(slots, count, obj);
    if (e->obj != obj || !rp_live_tag_holds(e->tag, now))
        return false;
    *id = e->id;
    return true;
}

void rp_live_cache_keep(rp_live_entry *slots, size_t count, VALUE obj, rp_live_now *now, uint32_t id)
{
    uint64_t tag;
    if (rp_live_tag(now, RB_OBJ_PROMOTED_RAW(obj), &tag))
        *slot_of(slots, count, obj) = (rp_live_entry){obj, tag, id};
}
