/*
 * agent/sampling/frame_capture.c — stacks captured as names. See frame_capture.h.
 *
 * Why the cache's tags are what they are: Ruby frees an object only when
 * it sweeps, after a marking that did not reach it. A frame object on the
 * stack at a capture made while no marking is in progress was reached by
 * the last marking (it is reachable now, and nothing unreachable becomes
 * reachable again) or allocated since, so it lives at least until the next
 * marking begins — and its address holds it until then. Every GC start
 * counts one in rb_gc_count(), so an entry tagged with that count serves
 * until the next GC. An old object is freed by a major GC only (which is
 * also the only GC that moves objects), so it is tagged with the count of
 * major GCs, which changes less often. A capture made while a marking is
 * in progress (Ruby marks a major GC incrementally, between stretches of
 * the program) has no such promise — the object may drop out of reach
 * before the marking finishes and be freed by the sweep that follows —
 * but nothing is freed before that sweep: its entry serves while the
 * same marking lasts. (A program that allocates nothing after a major GC
 * began stays in its marking: without those entries, every sample of it
 * named every frame again — 83% of the look-ups in tests/e2e/
 * frame_cache.sh, 3.6% with them.) No entry is made
 * inside GC. Both counts are Ruby's own, whichever Ractor's thread runs
 * the GC.
 */
#include "frame_capture.h"

#include <stdbool.h>
#include <string.h>

#include "../../common/anon_names.h"
#include "../../common/hash.h"
#include "../../common/idxset.h"
#include "../../profile/schema.h"
#include "frame_names.h"
#include "../vm/gc_watch.h"

#define CACHE_SLOTS 8192 /* direct-mapped: a collision costs a lookup */
#define LABEL_MAX 1024

typedef struct cache_entry {
    VALUE frame;
    uint64_t tag; /* epoch << 1 | old */
    uint32_t name;
} cache_entry;

static cache_entry cache[CACHE_SLOTS];
static uint64_t looked_up, named; /* frames looked up, and named anew (RPERF_VERBOSE) */

static uint32_t capped_name = RP_IDX_NONE;
static VALUE sym_state = Qnil, sym_marking = Qnil;
static size_t seen_count = SIZE_MAX, seen_major; /* rb_gc_count() and major GCs then */

void rp_frame_capture_init(void)
{
    if (sym_state != Qnil)
        return;
    /* Ruby makes its GC info symbols at the first call, which must not
     * be inside an allocation; the major GC count is gc_watch.h's. */
    sym_state = ID2SYM(rb_intern("state"));
    sym_marking = ID2SYM(rb_intern("marking"));
    rb_gc_latest_gc_info(sym_state);
}

/* --- names, read without allocating ------------------------------------ */

typedef struct text {
    char buf[LABEL_MAX];
    size_t len;
} text;

static void append(text *t, const char *s, size_t n)
{
    if (n > sizeof(t->buf) - 1 - t->len)
        n = sizeof(t->buf) - 1 - t->len;
    memcpy(t->buf + t->len, s, n);
    t->len += n;
}

static void append_str(text *t, VALUE str)
{
    if (RB_TYPE_P(str, T_STRING))
        append(t, RSTRING_PTR(str), (size_t)RSTRING_LEN(str));
}

static bool is_method_entry(VALUE frame)
{
    return RB_TYPE_P(frame, T_IMEMO) && ((RBASIC(frame)->flags >> RUBY_FL_USHIFT) & 0x0f) == 6 /* imemo_ment */;
}

/* What rb_class_path gives, without its copy: the module's name, or for
 * an anonymous one "#<Class>" (Ruby's "#<Class:0x...>" without the
 * address, as everywhere in the profile). */
static void append_module_name(text *t, VALUE mod, int depth)
{
    VALUE name = rb_mod_name(mod);
    if (RB_TYPE_P(name, T_STRING)) {
        append_str(t, name);
        return;
    }
    append(t, "#<", 2);
    if (depth < 4)
        append_module_name(t, rb_obj_class(mod), depth + 1);
    append(t, ">", 1);
}

/* rb_profile_frame_classpath's text: the class of a method's frame, its
 * receiver for a singleton method ("#<Array>" for an object's). Returns
 * false when the frame has none (a block, a class body, the top). The
 * defined class of a method entry sits where an object's class does. */
static bool append_classpath(text *t, VALUE frame)
{
    if (!is_method_entry(frame))
        return false;
    VALUE klass = RBASIC(frame)->klass;
    if (!klass || RB_SPECIAL_CONST_P(klass))
        return false;
    if (RB_TYPE_P(klass, T_ICLASS)) {
        klass = RBASIC(klass)->klass;
    } else if (RB_TYPE_P(klass, T_CLASS) && RB_FL_TEST_RAW(klass, RUBY_FL_SINGLETON)) {
        VALUE attached = rb_class_attached_object(klass);
        if (!RB_TYPE_P(attached, T_CLASS) && !RB_TYPE_P(attached, T_MODULE)) {
            append(t, "#<", 2);
            append_module_name(t, rb_obj_class(attached), 0);
            append(t, ">", 1);
            return true;
        }
        klass = attached;
    }
    append_module_name(t, klass, 0);
    return true;
}

/* "Class#method" or "Class.method" (`cls` holds the class, or is
 * empty), or the method alone. */
static void append_qualified(text *t, const text *cls, bool has_class, VALUE frame, VALUE method_name)
{
    if (has_class) {
        append(t, cls->buf, cls->len);
        append(t, rb_profile_frame_singleton_method_p(frame) == Qtrue ? "." : "#", 1);
    }
    append_str(t, method_name);
}

/* rb_profile_frame_full_label's text: "block in Foo#bar", "Integer#+",
 * "<top (required)>". */
static void full_label(text *t, VALUE frame, bool c_method)
{
    VALUE method_name = rb_profile_frame_method_name(frame);
    text cls = {.len = 0};
    bool has_class = !NIL_P(method_name) && append_classpath(&cls, frame);
    if (c_method) {
        if (!NIL_P(method_name))
            append_qualified(t, &cls, has_class, frame, method_name);
        return;
    }
    VALUE label = rb_profile_frame_label(frame);
    VALUE base_label = rb_profile_frame_base_label(frame);
    if (NIL_P(method_name) || (!has_class && method_name == base_label) || !RB_TYPE_P(label, T_STRING) ||
        !RB_TYPE_P(base_label, T_STRING)) {
        append_str(t, label);
        return;
    }
    long prefix = RSTRING_LEN(label) - RSTRING_LEN(base_label);
    append(t, RSTRING_PTR(label), prefix > 0 ? (size_t)prefix : 0);
    append_qualified(t, &cls, has_class, frame, method_name);
}

static uint32_t resolve(VALUE frame)
{
    VALUE path = rb_profile_frame_path(frame);
    bool c_method = !RB_TYPE_P(path, T_STRING);
    text label = {.len = 0};
    full_label(&label, frame, c_method);
    char clean[LABEL_MAX];
    size_t clean_len = rp_name_without_addresses(label.buf, label.len, clean, sizeof(clean));
    VALUE first = c_method ? Qnil : rb_profile_frame_first_lineno(frame);
    rp_named_frame name = {
        .path = c_method ? RP_C_METHOD_PATH : RSTRING_PTR(path),
        .path_len = c_method ? strlen(RP_C_METHOD_PATH) : (size_t)RSTRING_LEN(path),
        .label = clean,
        .label_len = clean_len,
        .first_line = FIXNUM_P(first) && FIX2LONG(first) > 0 ? (uint32_t)FIX2LONG(first) : 0,
    };
    return rp_frame_names_intern(&name);
}

/* --- the cache ----------------------------------------------------------- */

/* An entry's tag: the count it holds for, shifted, and its kind. */
enum { TAG_YOUNG = 0, TAG_OLD = 1, TAG_MARKING = 2, TAG_KIND = 3 };

/* The tags an entry made now would get. Whether a marking is in progress
 * is asked of Ruby only when an entry needs it (a miss, or an entry made
 * during a marking): one capture asks once at most. */
typedef struct tags {
    uint64_t young, old, in_marking;
    int marking; /* -1: not asked yet */
} tags;

static tags tags_now(void)
{
    size_t count = rb_gc_count();
    if (count != seen_count) {
        seen_count = count;
        seen_major = rp_gc_watch_majors();
    }
    return (tags){(uint64_t)count << 2 | TAG_YOUNG, (uint64_t)seen_major << 2 | TAG_OLD,
                  (uint64_t)count << 2 | TAG_MARKING, -1};
}

static bool marking_now(tags *now)
{
    if (now->marking < 0)
        now->marking = rb_gc_latest_gc_info(sym_state) == sym_marking;
    return now->marking;
}

/* The tag an entry of this kind must have to serve now. An entry made
 * during a marking serves while that marking lasts: nothing is freed
 * before the sweep that follows it. */
static uint64_t tag_that_serves(uint64_t tag, tags *now)
{
    switch (tag & TAG_KIND) {
    case TAG_OLD:
        return now->old;
    case TAG_MARKING:
        return marking_now(now) ? now->in_marking : ~tag;
    default:
        return now->young;
    }
}

/* The tag of an entry made now for `frame`, into *tag; false when none
 * may be made (inside GC, where what is alive is being decided). */
static bool tag_for(VALUE frame, tags *now, uint64_t *tag)
{
    if (rb_during_gc())
        return false;
    *tag = marking_now(now) ? now->in_marking : RB_OBJ_PROMOTED_RAW(frame) ? now->old : now->young;
    return true;
}

static uint32_t name_of(VALUE frame, tags *now)
{
    cache_entry *e = &cache[rp_hash_mix64((uint64_t)frame) & (CACHE_SLOTS - 1)];
    looked_up++;
    if (e->frame == frame && e->tag == tag_that_serves(e->tag, now))
        return e->name;
    named++;
    uint32_t name = resolve(frame);
    uint64_t tag;
    if (name != RP_IDX_NONE && tag_for(frame, now, &tag))
        *e = (cache_entry){frame, tag, name};
    return name;
}

int rp_frame_capture(int start, int limit, uint32_t *names, int *lines)
{
    VALUE frames[RP_STACK_MAX + 1];
    if (limit > RP_STACK_MAX + 1)
        limit = RP_STACK_MAX + 1;
    int depth = rb_profile_frames(start, limit, frames, lines);
    tags now = tags_now();
    for (int i = 0; i < depth; i++) {
        /* a recursion repeats its frame: no second look-up */
        names[i] = i > 0 && frames[i] == frames[i - 1] ? names[i - 1] : name_of(frames[i], &now);
        if (names[i] == RP_IDX_NONE)
            return 0;
    }
    return depth > 0 ? depth : 0;
}

void rp_frame_capture_counts(uint64_t *frames_looked_up, uint64_t *frames_named)
{
    *frames_looked_up = looked_up;
    *frames_named = named;
}

uint32_t rp_frame_capture_capped(void)
{
    if (capped_name == RP_IDX_NONE) {
        static const char label[] = RP_CAPPED_FRAME_NAME;
        rp_named_frame name = {"", label, 0, sizeof(label) - 1, 0};
        capped_name = rp_frame_names_intern(&name);
    }
    return capped_name;
}
