/*
 * agent/sampling/frame_capture.c — stacks captured as names. See frame_capture.h.
 *
 * Two things keep a capture cheap. The cache maps a frame's address to
 * its name for as long as liveness.h promises the address holds the same
 * frame (a program that allocates nothing after a major GC began stays
 * in its marking: without names kept during a marking, every sample of
 * it named every frame again — 27% of the frames captured in tests/e2e/
 * frame_cache.sh, the recursion's repeats aside; 1% with them). And
 * consecutive captures share most of their stack from the root down: the
 * last whole capture's frames and names are kept (the memo), and the
 * frames from the root that are the same objects as then take their
 * names from it — no look-up at all — while the same promise holds for
 * the memo as a whole (on a sampled allocation, a quarter of the
 * agent's instructions, counted while writing it).
 */
#include "frame_capture.h"

#include <stdbool.h>
#include <string.h>

#include "../../common/anon_names.h"
#include "../../common/idxset.h"
#include "../../profile/schema.h"
#include "frame_names.h"
#include "../vm/liveness.h"

#define CACHE_SLOTS 8192
#define LABEL_MAX 1024

static rp_live_entry cache[CACHE_SLOTS];
static uint64_t captured, named; /* frames captured, and named anew (RPERF_VERBOSE) */
static uint32_t capped_name = RP_IDX_NONE;
static int pushed_since_tick; /* rp_frame_capture_since_tick */

/* The last whole stack captured, and the tag it holds by (depth 0:
 * none). Leaf first as captures are, and aligned at its root on the end
 * of its arrays: the frames a capture shares with it from the root are
 * then compared as two arrays in step, a block at a time, and their
 * names copied as one block, wherever the leaves of the two end. */
#define MEMO_SLOTS (RP_STACK_MAX + 1)
static struct {
    VALUE frames[MEMO_SLOTS];
    uint32_t names[MEMO_SLOTS];
    int depth;
    uint64_t tag;
} memo;

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

/* --- the cache and the memo ----------------------------------------------- */

static uint32_t name_of(VALUE frame, rp_live_now *now)
{
    uint32_t name;
    if (rp_live_cache_find(cache, CACHE_SLOTS, frame, now, &name))
        return name;
    named++;
    name = resolve(frame);
    if (name != RP_IDX_NONE)
        rp_live_cache_keep(cache, CACHE_SLOTS, frame, now, name);
    return name;
}

/* How many frames from the root of frames[] (leaf first, `depth` of
 * them) are the memo's, their names copied into names[]. The memo must
 * hold. At depth 150, comparing one frame at a time was a fifth of the
 * instructions of a sample. */
#define MEMO_BLOCK 8

static int names_from_memo(const VALUE *frames, int depth, uint32_t *names)
{
    int limit = depth < memo.depth ? depth : memo.depth, same = 0;
    const VALUE *memo_end = memo.frames + MEMO_SLOTS;
    /* a loop sampled twice at the same place: one comparison */
    if (memcmp(frames + depth - limit, memo_end - limit, (size_t)limit * sizeof(VALUE)) == 0)
        same = limit;
    while (same + MEMO_BLOCK <= limit &&
           memcmp(frames + depth - same - MEMO_BLOCK, memo_end - same - MEMO_BLOCK, MEMO_BLOCK * sizeof(VALUE)) == 0)
        same += MEMO_BLOCK;
    while (same < limit && frames[depth - 1 - same] == memo_end[-1 - same])
        same++;
    memcpy(names + depth - same, memo.names + MEMO_SLOTS - same, (size_t)same * sizeof(*names));
    return same;
}

/* The memo becomes this whole stack (its first `same` frames from the
 * root are already there), unless no tag can be given now. A memo that
 * held keeps its tag: no GC began since it was made, nor did the marking
 * it was made in end, so a tag given now would be the same. */
static void remember(const VALUE *frames, const uint32_t *names, int depth, int same, bool held, rp_live_now *now)
{
    if (!held && !rp_live_tag(now, false, &memo.tag)) {
        memo.depth = 0;
        return;
    }
    size_t fresh = (size_t)(depth - same);
    memcpy(memo.frames + MEMO_SLOTS - depth, frames, fresh * sizeof(*frames));
    memcpy(memo.names + MEMO_SLOTS - depth, names, fresh * sizeof(*names));
    memo.depth = depth;
}

/* --- the tick's own frame ---------------------------------------------- */

void rp_frame_capture_since_tick(int pushed)
{
    pushed_since_tick = pushed;
}

static bool is_c_method(uint32_t name)
{
    return strcmp(rp_frame_names_get(name).path, RP_C_METHOD_PATH) == 0;
}

/* How many leaf frames of a capture to leave out: the Ruby frames pushed
 * since the tick above a C method that was running when the tick came —
 * none where no C method stands within those frames (Ruby frames pushed
 * by Ruby code reached no safepoint either, but then the tick's frame is
 * not known). Ruby's dummy frames count in `pushed` but are not
 * captured, so the C method is looked for among the `pushed` leaf frames
 * and the one below them. */
static int callback_frames(const uint32_t *names, int depth, int pushed)
{
    for (int i = 0; i <= pushed && i < depth - 1; i++)
        if (is_c_method(names[i]))
            return i;
    return 0;
}

static void drop_leaf_frames(uint32_t *names, int *lines, int depth, int drop)
{
    memmove(names, names + drop, (size_t)(depth - drop) * sizeof(*names));
    if (lines)
        memmove(lines, lines + drop, (size_t)(depth - drop) * sizeof(*lines));
}

int rp_frame_capture(int start, int limit, uint32_t *names, int *lines)
{
    VALUE frames[RP_STACK_MAX + 1];
    if (limit > RP_STACK_MAX + 1)
        limit = RP_STACK_MAX + 1;
    int depth = rb_profile_frames(start, limit, frames, lines);
    rp_live_now now = rp_live_now_get();
    /* Only a whole stack lines up with the memo from the root. */
    bool whole = start == 0 && depth > 0 && depth < limit;
    bool held = whole && memo.depth > 0 && rp_live_tag_holds(memo.tag, &now);
    int same = held ? names_from_memo(frames, depth, names) : 0;
    for (int i = depth - same - 1; i >= 0; i--) {
        /* a recursion repeats its frame: no second look-up */
        names[i] = i < depth - 1 && frames[i] == frames[i + 1] ? names[i + 1] : name_of(frames[i], &now);
        if (names[i] == RP_IDX_NONE)
            return 0;
    }
    if (whole)
        remember(frames, names, depth, same, held, &now);
    int drop = pushed_since_tick > 0 && start == 0 ? callback_frames(names, depth, pushed_since_tick) : 0;
    if (drop > 0) {
        drop_leaf_frames(names, lines, depth, drop);
        depth -= drop;
    }
    captured += depth > 0 ? (uint64_t)depth : 0;
    return depth > 0 ? depth : 0;
}

void rp_frame_capture_counts(uint64_t *frames_captured, uint64_t *frames_named)
{
    *frames_captured = captured;
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

void rp_frame_capture_renumber(rp_frame_name_fn *fn)
{
    /* Forgotten rather than renumbered: an entry of a frame the program
     * has dropped would keep its name held (8,192 of them could hold the
     * names' whole bound); the frames still run are named again once. */
    memset(cache, 0, sizeof(cache));
    memo.depth = 0;
    capped_name = fn(capped_name);
}
