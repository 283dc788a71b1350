/*
 * agent/ext/api.c — the Rperf module: the rperf gem's API, served by the agent.
 *
 * Owns: Init_rperf_agent, which Ruby calls when a program requires
 * "rperf" (rperf.rb requires rperf/rperf_agent.so, this extension, built
 * with the agent and installed in the agent's Ruby folder: ruby_lib.h),
 * finding the preloaded core (core_api.h), and the module's methods:
 *   Rperf.label(**labels) { }   labels of the current thread (labels.h)
 *   Rperf.labels                those labels as a Hash
 *   Rperf.profile(**labels) { } labels, and sampling in a deferred process
 *                               (defer.h)
 *   Rperf.snapshot(clear: false) the profile so far as the gem's Hash
 *   Rperf.start(**opts) / Rperf.stop  a window of the agent's profile
 *   Rperf.running?              whether the agent profiles this process
 * The profile the agent writes at exit is never touched by any of them.
 * Where the agent does not profile the process (a fork child it does not
 * follow, say), labels and profile blocks just run their block: code
 * written for the gem never fails because of the agent.
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
#include "../core_api.h"
#include "../ruby_lib.h"
#include "profile_hash.h"
#include "../ruby_api.h"

/* The sampling core, found at Init (core_api.h). */
static const rp_core_api *core;

/* Ruby calls it when rperf.rb requires rperf/rperf_agent.so. */
__attribute__((visibility("default"))) void Init_rperf_agent(void);

/* The window snapshot(clear: true), start and stop see; its start is the
 * profile's beginning until one of them moves it. */
static rp_window window;
static bool window_set;  /* else: the whole profile */
static bool window_open; /* between Rperf.start and Rperf.stop */
static char *window_output; /* Rperf.start(output:), or NULL */

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
    if (s->profile_block && core->profiling())
        core->defer_leave(s->thread);
    s->thread->label_set = core->labels_release(s->previous);
    return Qnil;
}

/* The current thread's record, or NULL when the agent does not profile
 * this process (or is out of memory). */
static rp_thread *labelled_thread(void)
{
    return core->profiling() ? core->current_thread() : NULL;
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

/* Rperf.profile(**labels) { ... } */
static VALUE rperf_profile(int argc, VALUE *argv, VALUE self)
{
    (void)self;
    VALUE kw = Qnil;
    rb_scan_args(argc, argv, ":", &kw);
    if (!rb_block_given_p())
        rb_raise(rb_eArgError, "Rperf.profile requires a block");
    return labelled(kw, true);
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

/* --- windows ------------------------------------------------------------- */

/* The profile of the window as the gem's Hash; moves the window's start to
 * now when `restart`. */
static VALUE window_data(bool restart, rp_profile *p)
{
    if (core->build_window(window_set ? &window : NULL, p) != 0)
        rb_raise(rb_eNoMemError, "rperf: out of memory building the profile");
    if (restart && core->open_window(&window) == 0)
        window_set = true;
    return rp_profile_hash(p);
}

struct data_args {
    bool restart;
    char *output; /* Rperf.start(output:) at stop, owned; or NULL */
    rp_profile profile;
    VALUE hash;
};

/* The window's data, also written to `output` when given. */
static VALUE data_body(VALUE arg)
{
    struct data_args *a = (struct data_args *)arg;
    a->hash = window_data(a->restart, &a->profile);
    if (a->output) {
        int err = rp_profile_write_file(&a->profile, a->output, RP_GZIP_FAST);
        if (err)
            rb_syserr_fail(err, a->output);
    }
    return a->hash;
}

static VALUE data_free(VALUE arg)
{
    struct data_args *a = (struct data_args *)arg;
    rp_profile_free(&a->profile);
    free(a->output);
    return Qnil;
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
    if (!core->profiling())
        return Qnil;
    struct data_args a = {.restart = RTEST(clear)};
    return rb_ensure(data_body, (VALUE)&a, data_free, (VALUE)&a);
}

/* --- start / stop -------------------------------------------------------- */

enum start_option {
    OPT_FREQUENCY, OPT_MODE, OPT_OUTPUT, OPT_VERBOSE, OPT_FORMAT, OPT_STAT, OPT_SIGNAL,
    OPT_AGGREGATE, OPT_DEFER, OPT_INHERIT, OPT_COUNT
};

static const char *const start_option_names[OPT_COUNT] = {
    "frequency", "mode", "output", "verbose", "format", "stat", "signal",
    "aggregate", "defer", "inherit",
};

static const char *name_of(VALUE v)
{
    VALUE s = text_of(v);
    return StringValueCStr(s);
}

static const char *inspect_of(VALUE v)
{
    VALUE s = rb_inspect(v);
    return StringValueCStr(s);
}

/* Options that would change the agent's own configuration are refused,
 * naming both values; verbose, stat, signal and inherit are the agent's
 * business (RPERF_* variables) and are accepted and ignored. */
static void check_start_options(const VALUE *opt)
{
    const rp_config *cfg = core->config();
    if (opt[OPT_MODE] != Qundef && strcmp(name_of(opt[OPT_MODE]), rp_mode_name(cfg->mode)) != 0)
        rb_raise(rb_eArgError, "Rperf.start(mode: %s) contradicts the agent's RPERF_MODE=%s",
                 inspect_of(opt[OPT_MODE]), rp_mode_name(cfg->mode));
    if (opt[OPT_FREQUENCY] != Qundef && NUM2INT(opt[OPT_FREQUENCY]) != cfg->frequency)
        rb_raise(rb_eArgError,
                 "Rperf.start(frequency: %s) contradicts the agent's RPERF_FREQUENCY=%d",
                 inspect_of(opt[OPT_FREQUENCY]), cfg->frequency);
    if (opt[OPT_AGGREGATE] != Qundef && (bool)RTEST(opt[OPT_AGGREGATE]) != cfg->aggregate)
        rb_raise(rb_eArgError,
                 "Rperf.start(aggregate: %s) contradicts the agent's RPERF_AGGREGATE=%d",
                 RTEST(opt[OPT_AGGREGATE]) ? "true" : "false", cfg->aggregate ? 1 : 0);
    if (opt[OPT_FORMAT] != Qundef && !NIL_P(opt[OPT_FORMAT]) &&
        strcmp(name_of(opt[OPT_FORMAT]), "json") != 0)
        rb_raise(rb_eArgError,
                 "Rperf.start(format: %s): under the agent only json (.json.gz) is written; "
                 "convert it with rperf-analyze convert",
                 inspect_of(opt[OPT_FORMAT]));
    VALUE out = opt[OPT_OUTPUT];
    if (out != Qundef && !NIL_P(out)) {
        const char *path = StringValueCStr(out);
        size_t len = strlen(path);
        if (len < 8 || strcmp(path + len - 8, ".json.gz") != 0)
            rb_raise(rb_eArgError,
                     "Rperf.start(output: \"%s\"): under the agent only .json.gz is written; "
                     "convert it with rperf-analyze convert",
                     path);
    }
}

static VALUE rperf_stop(VALUE self);

/* Rperf.start with a block returns what Rperf.stop returned after it. */
static VALUE stop_after_block(VALUE arg)
{
    *(VALUE *)arg = rperf_stop(Qnil);
    return Qnil;
}

/* Rperf.start(**options) { ... } */
static VALUE rperf_start(int argc, VALUE *argv, VALUE self)
{
    (void)self;
    VALUE kw = Qnil, opt[OPT_COUNT];
    ID ids[OPT_COUNT];
    rb_scan_args(argc, argv, ":", &kw);
    for (int i = 0; i < OPT_COUNT; i++) {
        ids[i] = rb_intern(start_option_names[i]);
        opt[i] = Qundef;
    }
    if (!NIL_P(kw))
        rb_get_kwargs(kw, ids, 0, OPT_COUNT, opt);
    if (!core->profiling())
        return rb_block_given_p() ? (rb_yield_values(0), Qnil) : Qnil;
    if (window_open)
        rb_raise(rb_eRuntimeError, "Rperf is already running");
    check_start_options(opt);
    if (core->open_window(&window) != 0)
        rb_raise(rb_eNoMemError, "rperf: out of memory opening a profile window");
    window_set = window_open = true;
    free(window_output);
    window_output = NULL;
    if (opt[OPT_OUTPUT] != Qundef && !NIL_P(opt[OPT_OUTPUT]))
        window_output = strdup(StringValueCStr(opt[OPT_OUTPUT]));
    if (opt[OPT_DEFER] != Qundef && RTEST(opt[OPT_DEFER]))
        core->defer_set_window(true);
    if (!rb_block_given_p())
        return Qnil;
    VALUE data = Qnil;
    rb_ensure(run_block, Qnil, stop_after_block, (VALUE)&data);
    return data;
}

/* Rperf.stop: the window's data, or nil when no window is open. */
static VALUE rperf_stop(VALUE self)
{
    (void)self;
    if (!window_open)
        return Qnil;
    window_open = false;
    struct data_args a = {.restart = false, .output = window_output};
    window_output = NULL;
    if (!core->profiling()) {
        free(a.output);
        return Qnil;
    }
    core->defer_set_window(false);
    return rb_ensure(data_body, (VALUE)&a, data_free, (VALUE)&a);
}

/* Rperf.running? */
static VALUE rperf_running_p(VALUE self)
{
    (void)self;
    return core->profiling() ? Qtrue : Qfalse;
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
    Dl_info self;
    char expected[4096];
    if (!c) {
        snprintf(why, size, "rperf: the agent is not loaded in this process; run Ruby with "
                            "LD_PRELOAD=librperf-agent.so (or the rperf command)");
        return NULL;
    }
    const char *folder = c->abi == RP_CORE_ABI && c->size == sizeof(*c) ? c->ruby_folder() : NULL;
    if (folder)
        snprintf(expected, sizeof(expected), "%s/" RP_RUBY_EXTENSION, folder);
    if (!folder || !dladdr((void *)find_core, &self) || !self.dli_fname ||
        !same_file(self.dli_fname, expected)) {
        snprintf(why, size, "rperf: %s is not the extension of the preloaded agent "
                            "(a different build or install); require it through the agent's "
                            "own rperf.rb",
                 self.dli_fname ? self.dli_fname : RP_RUBY_EXTENSION);
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
    VALUE rperf = rb_define_module("Rperf");
    rb_define_singleton_method(rperf, "label", rperf_label, -1);
    rb_define_singleton_method(rperf, "labels", rperf_labels, 0);
    rb_define_singleton_method(rperf, "profile", rperf_profile, -1);
    rb_define_singleton_method(rperf, "snapshot", rperf_snapshot, -1);
    rb_define_singleton_method(rperf, "start", rperf_start, -1);
    rb_define_singleton_method(rperf, "stop", rperf_stop, 0);
    rb_define_singleton_method(rperf, "running?", rperf_running_p, 0);
}
