/*
 * agent/ext/api.c — the Rperf module: the rperf gem's API, served by the agent.
 *
 * Owns: Init_rperf_agent, which Ruby calls when a program requires
 * "rperf" (rperf.rb requires rperf/rperf_agent.so, this extension, built
 * with the agent and installed in the agent's Ruby folder: ruby_lib.h),
 * finding the preloaded core (core_api.h), and the module's native methods:
 *   Rperf.label(**labels) { }   labels of the current thread (labels.h)
 *   Rperf.labels                those labels as a Hash
 *   Rperf.profile(**labels) { } labels, and sampling in a deferred
 *                               recording (defer.h)
 *   Rperf.running?              whether anything records this process
 *   Rperf._label_alias(key, from, to)  a label value written as another
 *                               (label_aliases.h: a request's route)
 *   Rperf.snapshot(clear: false) the data so far, as the gem's Hash
 *   Rperf._session_start(mode, frequency, aggregate, defer, alloc) and
 *   Rperf._session_stop         a session's beginning and end, for
 *                               rperf.rb's start/stop (which check the
 *                               options and word their errors as the gem)
 *   Rperf._session_forked?      a fork child whose parent had a session
 * They act on the session when one is open (Rperf.start .. stop), else on
 * the whole-process profile when the agent takes one, else on nothing:
 * labels and blocks then just run, snapshot is nil and profile raises, as
 * the gem does when it is not started. The formats (encoders, files) are
 * formats.c's, the Hash shape profile_hash.c's.
 *
 * Context: Ruby methods — a Ruby thread holding the GVL. They may raise
 * and allocate; they reach the agent only through the core's table.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../profile/profile_write.h"
#include "../base/config.h"
#include "../control/core_api.h"
#include "../base/ruby_lib.h"
#include "formats.h"
#include "profile_hash.h"
#include "session_parts.h"
#include "../base/ruby_api.h"

/* The sampling core, found at Init (core_api.h). */
static const rp_core_api *core;
static bool session_aggregates; /* the open session's aggregate: option */

/* What the methods act on: the session, else the whole-process profile. */
static bool target(rp_rec_id *id)
{
    if (core->session_is_open()) {
        *id = RP_REC_SESSION;
        return true;
    }
    *id = RP_REC_WHOLE;
    return core->profiling();
}

/* Ruby calls it when rperf.rb requires rperf/rperf_agent.so. */
__attribute__((visibility("default"))) void Init_rperf_agent(void);

/* --- labels -------------------------------------------------------------- */

/* Labels given in one call, as key and value strings (a nil value
 * deletes). Converting them runs Ruby code (#to_s), where a part may be
 * written and the label store compacted (labels.h), so every conversion is
 * done before any set id is read. Kept on the stack (Ruby's GC scans it),
 * or in a Ruby array when there are many. */
#define TEXTS_ON_STACK 16

typedef struct label_texts {
    size_t n;
    const VALUE *strings; /* 2n: key, value, ... */
    VALUE small[2 * TEXTS_ON_STACK];
    VALUE many; /* the Ruby array behind `strings` when n > TEXTS_ON_STACK */
} label_texts;

static VALUE text_of(VALUE v)
{
    if (RB_SYMBOL_P(v))
        return rb_sym2str(v);
    return RB_TYPE_P(v, T_STRING) ? v : rb_obj_as_string(v);
}

static int add_text(VALUE key, VALUE value, VALUE arg)
{
    label_texts *t = (label_texts *)arg;
    VALUE k = text_of(key);
    VALUE v = NIL_P(value) ? Qnil : text_of(value);
    if (t->many) {
        rb_ary_push(t->many, k);
        rb_ary_push(t->many, v);
    } else {
        t->small[2 * t->n] = k;
        t->small[2 * t->n + 1] = v;
    }
    t->n++;
    return ST_CONTINUE;
}

/* Ruby calls: may raise, may compact the store. */
static void collect_texts(VALUE kw, label_texts *t)
{
    t->n = 0;
    t->many = 0;
    t->strings = t->small;
    if (NIL_P(kw))
        return;
    if (RHASH_SIZE(kw) > TEXTS_ON_STACK)
        t->many = rb_ary_new_capa(2 * (long)RHASH_SIZE(kw));
    rb_hash_foreach(kw, add_text, (VALUE)t);
    if (t->many)
        t->strings = RARRAY_CONST_PTR(t->many);
}

/* No Ruby call: set `current` with the texts applied; `current` when out
 * of memory. */
static uint32_t merged_labels(uint32_t current, const label_texts *t)
{
    uint32_t set = current;
    rp_label_change changes[TEXTS_ON_STACK];
    for (size_t done = 0; done < t->n;) {
        size_t n = 0;
        for (; n < TEXTS_ON_STACK && done < t->n; n++, done++) {
            VALUE k = t->strings[2 * done], v = t->strings[2 * done + 1];
            changes[n] = (rp_label_change){
                .key = RSTRING_PTR(k),
                .key_len = (size_t)RSTRING_LEN(k),
                .value = NIL_P(v) ? NULL : RSTRING_PTR(v),
                .value_len = NIL_P(v) ? 0 : (size_t)RSTRING_LEN(v),
            };
        }
        set = core->labels_merge(set, changes, n);
        if (set == RP_IDX_NONE)
            return current;
    }
    return set;
}

/* What a labelled block restores when it ends, however it ends. */
typedef struct block_scope {
    rp_thread *thread;
    rp_label_hold *previous; /* the set before the block (labels.h) */
    bool profile_block; /* Rperf.profile: also leave the defer count */
} block_scope;

static VALUE run_block(VALUE unused)
{
    (void)unused;
    return rb_yield_values(0);
}

static VALUE end_block(VALUE arg)
{
    block_scope *s = (block_scope *)arg;
    /* Leaving first: a pause charges the block's last stretch, which must
     * still carry the block's labels. */
    if (s->profile_block)
        core->defer_leave(s->thread);
    s->thread->label_set = core->labels_release(s->previous);
    return Qnil;
}

/* The current thread's record, or NULL when nothing records this process
 * (or out of memory). */
static rp_thread *labelled_thread(void)
{
    rp_rec_id id;
    return target(&id) ? core->current_thread() : NULL;
}

static VALUE labelled(VALUE kw, bool profile_block)
{
    rp_thread *t = labelled_thread();
    if (!t)
        return rb_block_given_p() ? rb_yield_values(0) : Qnil;
    label_texts texts;
    collect_texts(kw, &texts);
    if (!rb_block_given_p()) {
        t->label_set = merged_labels(t->label_set, &texts);
        return Qnil;
    }
    block_scope scope = {t, core->labels_hold(t->label_set), profile_block};
    if (!scope.previous) /* out of memory: the block runs with the labels it has */
        return rb_yield_values(0);
    t->label_set = merged_labels(t->label_set, &texts);
    RB_GC_GUARD(texts.many);
    if (profile_block)
        core->defer_enter(t);
    return rb_ensure(run_block, Qnil, end_block, (VALUE)&scope);
}

/* Rperf.label(**labels) { ... } */
static VALUE rperf_label(int argc, VALUE *argv, VALUE self)
{
    (void)self;
    VALUE kw = Qnil;
    rb_scan_args(argc, argv, ":", &kw);
    return labelled(kw, false);
}

/* A profile block: `name` for the messages; when nothing records, the
 * block runs as it is, or, `strict`, raises as the gem's does. */
static VALUE profile_block(int argc, VALUE *argv, const char *name, bool strict)
{
    VALUE kw = Qnil;
    rb_scan_args(argc, argv, ":", &kw);
    if (!rb_block_given_p())
        rb_raise(rb_eArgError, "%s requires a block", name);
    rp_rec_id id;
    if (strict && !target(&id))
        rb_raise(rb_eRuntimeError, "Rperf is not started");
    return labelled(kw, true);
}

/* Rperf.profile(**labels) { ... } */
static VALUE rperf_profile(int argc, VALUE *argv, VALUE self)
{
    (void)self;
    return profile_block(argc, argv, "Rperf.profile", true);
}

/* Rperf._profile_if_running(**labels) { ... } — the middlewares' profile
 * block: profiled when something records, run as it is when nothing does,
 * decided in one call with the GVL held. A stop landing between a
 * `running?` and a `profile` (rperf ctl stop, at a safepoint of this very
 * thread; another thread's Rperf.stop) made `profile` raise "Rperf is not
 * started", and the request a 500, the job a failure. */
static VALUE rperf_profile_if_running(int argc, VALUE *argv, VALUE self)
{
    (void)self;
    return profile_block(argc, argv, "Rperf._profile_if_running", false);
}

/* Rperf.labels */
static VALUE rperf_labels(VALUE self)
{
    (void)self;
    VALUE h = rb_hash_new();
    rp_thread *t = labelled_thread();
    uint32_t set = t ? t->label_set : 0;
    for (uint32_t i = 0; i < core->labels_pair_count(set); i++) {
        const char *key, *value;
        size_t key_len, value_len;
        core->labels_pair(set, i, &key, &key_len, &value, &value_len);
        rb_hash_aset(h, ID2SYM(rb_intern2(key, (long)key_len)),
                     rb_obj_freeze(rb_utf8_str_new(value, (long)value_len)));
    }
    return h;
}

/* --- snapshots and sessions ------------------------------------------------ */

/* The window snapshot(clear: true) moved on to, per recording; a window of
 * an earlier session or profile means the recording's whole (agent.h). */
static rp_window window;
static bool window_set;

struct data_args {
    rp_rec_id id;
    bool restart; /* snapshot(clear: true): the next one begins now */
    bool keep;    /* the data is read again later (a snapshot) */
    rp_profile profile;
};

/* The whole profile's data: since its beginning, or since the window
 * snapshot(clear: true) opened. */
static void build_whole(struct data_args *a)
{
    const rp_window *from = window_set && window.recording == a->id ? &window : NULL;
    if (core->build_window(a->id, from, &a->profile) != 0)
        rb_raise(rb_eNoMemError, "rperf: out of memory building the profile");
    if (a->restart) {
        core->free_window(&window);
        window_set = core->open_window(a->id, &window) == 0;
    }
}

/* The session's data: the parts its stack table filled (session_parts.h)
 * and its tables' part; snapshot(clear: true) takes that as a part, so
 * the next one begins with empty tables. */
static void build_session(struct data_args *a)
{
    int rc = a->restart ? core->take_session_part(&a->profile) : core->build_window(a->id, NULL, &a->profile);
    if (rc != 0 || rp_session_parts_join(&a->profile, a->keep && !a->restart) != 0)
        rb_raise(rb_eNoMemError, "rperf: out of memory building the profile");
}

static VALUE data_body(VALUE arg)
{
    struct data_args *a = (struct data_args *)arg;
    if (a->id == RP_REC_SESSION)
        build_session(a);
    else
        build_whole(a);
    return rp_profile_hash(&a->profile);
}

static VALUE data_free(VALUE arg)
{
    rp_profile_free(&((struct data_args *)arg)->profile);
    return Qnil;
}

/* Recording `id`'s data as the gem's Hash: a snapshot's (`keep`), or
 * the session's last (Rperf.stop). */
static VALUE data_of(rp_rec_id id, bool restart, bool keep)
{
    struct data_args a = {.id = id, .restart = restart, .keep = keep};
    return rb_ensure(data_body, (VALUE)&a, data_free, (VALUE)&a);
}

/* Rperf.snapshot(clear: false) */
static VALUE rperf_snapshot(int argc, VALUE *argv, VALUE self)
{
    (void)self;
    VALUE kw = Qnil, clear = Qfalse;
    rb_scan_args(argc, argv, ":", &kw);
    if (!NIL_P(kw)) {
        ID id = rb_intern("clear");
        rb_get_kwargs(kw, &id, 0, 1, &clear);
        if (clear == Qundef)
            clear = Qfalse;
    }
    rp_rec_id id;
    if (!target(&id))
        return Qnil;
    const rp_config *cfg = core->config();
    bool aggregate = id == RP_REC_SESSION ? session_aggregates : cfg->aggregate;
    if (!aggregate)
        rb_raise(rb_eRuntimeError, "snapshot requires aggregate mode (aggregate: true)");
    return data_of(id, RTEST(clear), true);
}

static rp_mode mode_named(VALUE mode)
{
    const char *name = rb_id2name(SYM2ID(mode));
    return strcmp(name, "wall") == 0 ? RP_MODE_WALL : RP_MODE_CPU;
}

/* Rperf._session_start(mode, frequency, aggregate, defer, alloc): the
 * options as rperf.rb checked them; alloc 0 for no allocation sampling. */
static VALUE rperf_session_start(VALUE self, VALUE mode, VALUE frequency, VALUE aggregate, VALUE defer,
                                 VALUE alloc)
{
    (void)self;
    if (core->session_is_open())
        rb_raise(rb_eRuntimeError, "Rperf is already running");
    rp_session_opts o = {
        .rec = {.mode = mode_named(mode), .frequency = NUM2INT(frequency),
                .aggregate = RTEST(aggregate), .deferred = RTEST(defer), .alloc_rate = NUM2LONG(alloc)},
    };
    core->clear_labels();
    if (core->session_open(&o) != 0)
        rb_raise(rb_eRuntimeError, "rperf: cannot start a session (the agent is not running in "
                                   "this process, or its sampling thread cannot start)");
    session_aggregates = o.rec.aggregate;
    rp_session_parts_reset();
    core->free_window(&window);
    window_set = false;
    return Qnil;
}

static VALUE data_of_session(VALUE unused)
{
    (void)unused;
    return data_of(RP_REC_SESSION, false, false);
}

static VALUE close_session(VALUE unused)
{
    (void)unused;
    core->session_close();
    core->clear_labels();
    return Qnil;
}

/* Rperf._session_stop: the session's data, and its end; nil without one. */
static VALUE rperf_session_stop(VALUE self)
{
    (void)self;
    if (!core->session_is_open())
        return Qnil;
    return rb_ensure(data_of_session, Qnil, close_session, Qnil);
}

/* Rperf._session_forked?: in a fork child whose parent had a session
 * open (once). */
static VALUE rperf_session_forked_p(VALUE self)
{
    (void)self;
    return core->take_session_at_fork() ? Qtrue : Qfalse;
}

/* Rperf._agent_session_dir: where the whole-process profiles go, or nil. */
static VALUE rperf_agent_session_dir(VALUE self)
{
    (void)self;
    const char *dir = core->session_dir();
    return dir ? rb_str_new_cstr(dir) : Qnil;
}

/* Rperf.running? */
/* Rperf._request_begin(name, queued_at) / Rperf._request_end(status,
 * final_name = nil): a request or job of endpoint `name` on the calling
 * fiber (spans.h; nested ones count once), queued since `queued_at` (Unix
 * time in seconds, a Float; nil: not known); status 0 or nil for none;
 * final_name, when given, the endpoint it turned out to be (a router's
 * route). Nothing without a profile. */
static VALUE rperf_request_begin(VALUE self, VALUE name, VALUE queued_at)
{
    (void)self;
    rp_thread *t = core->profiling() || core->session_is_open() ? core->current_thread() : NULL;
    if (t) {
        VALUE text = rb_obj_as_string(name);
        double queued = RB_FLOAT_TYPE_P(queued_at) || RB_INTEGER_TYPE_P(queued_at) ? rb_num2dbl(queued_at) : 0;
        int64_t queued_ns = queued > 0 && queued < 1e11 ? (int64_t)(queued * 1e9) : 0;
        core->span_begin(t, RSTRING_PTR(text), (size_t)RSTRING_LEN(text), queued_ns);
    }
    return Qnil;
}

static VALUE rperf_request_end(int argc, VALUE *argv, VALUE self)
{
    (void)self;
    VALUE status, name;
    rb_scan_args(argc, argv, "11", &status, &name);
    rp_thread *t = core->current_thread();
    if (!t)
        return Qnil;
    int code = RB_INTEGER_TYPE_P(status) ? NUM2INT(status) : 0;
    if (NIL_P(name)) {
        core->span_end(t, code, NULL, 0);
    } else {
        VALUE text = rb_obj_as_string(name);
        core->span_end(t, code, RSTRING_PTR(text), (size_t)RSTRING_LEN(text));
    }
    return Qnil;
}

/* Rperf._label_alias(key, from, to): label key=from is written as
 * key=to from now on (the Rack middleware: a request's path label, its
 * route). Never raises for strings and symbols; true when kept. */
static VALUE rperf_label_alias(VALUE self, VALUE key, VALUE from, VALUE to)
{
    (void)self;
    VALUE k = RB_SYMBOL_P(key) ? rb_sym2str(key) : key;
    if (!RB_TYPE_P(k, T_STRING) || !RB_TYPE_P(from, T_STRING) || !RB_TYPE_P(to, T_STRING))
        return Qfalse;
    return core->label_alias(RSTRING_PTR(k), (size_t)RSTRING_LEN(k), RSTRING_PTR(from), (size_t)RSTRING_LEN(from),
                             RSTRING_PTR(to), (size_t)RSTRING_LEN(to))
               ? Qtrue
               : Qfalse;
}

static VALUE rperf_running_p(VALUE self)
{
    (void)self;
    rp_rec_id id;
    return target(&id) ? Qtrue : Qfalse;
}

/* --- the module -------------------------------------------------------- */

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* The preloaded core whose Ruby folder this extension lives in, or NULL
 * after saying why in `why`. */
static const rp_core_api *find_core(char *why, size_t size)
{
    const rp_core_api *c = dlsym(RTLD_DEFAULT, RP_CORE_SYMBOL);
    Dl_info self = {0};
    char expected[4096];
    if (!c) {
        snprintf(why, size, "rperf: the agent is not loaded in this process; run Ruby with "
                            "LD_PRELOAD=librperf-agent.so (or the rperf command)");
        return NULL;
    }
    const char *folder = c->abi == RP_CORE_ABI && c->size == sizeof(*c) ? c->ruby_folder() : NULL;
    if (folder)
        snprintf(expected, sizeof(expected), "%s/" RP_RUBY_EXTENSION, folder);
    bool located = dladdr((void *)find_core, &self) && self.dli_fname;
    if (!folder || !located || !same_file(self.dli_fname, expected)) {
        snprintf(why, size, "rperf: %s is not the extension of the preloaded agent "
                            "(a different build or install); require it through the agent's "
                            "own rperf.rb",
                 located ? self.dli_fname : RP_RUBY_EXTENSION);
        return NULL;
    }
    return c;
}

void Init_rperf_agent(void)
{
    char why[512];
    core = find_core(why, sizeof(why));
    if (!core)
        rb_raise(rb_eLoadError, "%s", why);
    core->set_session_sink(rp_session_parts_take);
    VALUE rperf = rb_define_module("Rperf");
    rb_define_singleton_method(rperf, "label", rperf_label, -1);
    rb_define_singleton_method(rperf, "labels", rperf_labels, 0);
    rb_define_singleton_method(rperf, "profile", rperf_profile, -1);
    rb_define_singleton_method(rperf, "_profile_if_running", rperf_profile_if_running, -1);
    rb_define_singleton_method(rperf, "snapshot", rperf_snapshot, -1);
    rb_define_singleton_method(rperf, "running?", rperf_running_p, 0);
    rb_define_singleton_method(rperf, "_request_begin", rperf_request_begin, 2);
    rb_define_singleton_method(rperf, "_request_end", rperf_request_end, -1);
    rb_define_singleton_method(rperf, "_label_alias", rperf_label_alias, 3);
    rb_define_singleton_method(rperf, "_session_start", rperf_session_start, 5);
    rb_define_singleton_method(rperf, "_session_stop", rperf_session_stop, 0);
    rb_define_singleton_method(rperf, "_session_forked?", rperf_session_forked_p, 0);
    rb_define_singleton_method(rperf, "_agent_session_dir", rperf_agent_session_dir, 0);
    /* Rperf.start(alloc: true): the agent's default rate */
    rb_define_const(rperf, "ALLOC_DEFAULT", INT2FIX(RP_ALLOC_RATE_DEFAULT));
    rp_formats_define(rperf, core);
}
