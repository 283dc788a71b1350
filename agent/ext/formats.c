/*
 * agent/ext/formats.c — the library's formats for Ruby. See formats.h.
 */
#include "formats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../profile/encode/encoder.h"
#include "../../profile/encode/format.h"
#include "../../profile/encode/pprof.h"
#include "../../profile/encode/collapsed.h"
#include "../../profile/encode/report.h"
#include "../../profile/encode/stat.h"
#include "../../profile/encode/table.h"
#include "../../profile/encode/verbose.h"
#include "../../profile/diag.h"
#include "../../profile/load.h"
#include "../../profile/merge.h"
#include "../../profile/meta_read.h"
#include "../../profile/output.h"
#include "../../profile/profile_read.h"
#include "../../profile/profile_write.h"
#include "profile_hash.h"

static const rp_core_api *core;

/* --- encoding into Strings ----------------------------------------------- */

/* Writes a profile to `out`; returns 0, or -1 when out of memory. */
typedef int (*writer_fn)(const rp_profile *p, rp_out *out, const void *ctx);

typedef struct encoding {
    VALUE data;
    writer_fn write;
    const void *ctx;
    bool binary;
    rp_profile profile;
    bool has_profile;
    char *text;
    size_t len;
} encoding;

static VALUE encode_body(VALUE arg)
{
    encoding *e = (encoding *)arg;
    e->has_profile = true;
    rp_profile_from_hash(e->data, &e->profile);
    FILE *fp = open_memstream(&e->text, &e->len);
    rp_out *out = fp ? rp_out_stream(fp, true) : NULL;
    if (!out)
        rb_raise(rb_eNoMemError, "rperf: out of memory encoding the profile");
    int rc = e->write(&e->profile, out, e->ctx);
    if (rp_out_close(out) != 0 || rc != 0)
        rb_raise(rb_eNoMemError, "rperf: out of memory encoding the profile");
    return e->binary ? rb_str_new(e->text, (long)e->len) : rb_utf8_str_new(e->text, (long)e->len);
}

static VALUE encode_done(VALUE arg)
{
    encoding *e = (encoding *)arg;
    if (e->has_profile)
        rp_profile_free(&e->profile);
    free(e->text);
    return Qnil;
}

static VALUE encode(VALUE data, writer_fn write, const void *ctx, bool binary)
{
    encoding e = {.data = data, .write = write, .ctx = ctx, .binary = binary};
    return rb_ensure(encode_body, (VALUE)&e, encode_done, (VALUE)&e);
}

/* A format of the table (format.h), with encoder options. */
typedef struct format_job {
    const rp_format *format;
    rp_encode_opts opts;
} format_job;

static int write_format(const rp_profile *p, rp_out *out, const void *ctx)
{
    const format_job *j = ctx;
    return j->format->encode(p, out, &j->opts);
}

static const rp_format *format_of(VALUE name)
{
    VALUE s = RB_SYMBOL_P(name) ? rb_sym2str(name) : name;
    const rp_format *f = rp_format_named(StringValueCStr(s));
    if (!f)
        rb_raise(rb_eArgError, "rperf: unknown format %" PRIsVALUE, name);
    return f;
}

/* Rperf::PProf.encode(data) */
static VALUE pprof_encode(VALUE self, VALUE data)
{
    (void)self;
    format_job j = {rp_format_named("pprof"), RP_ENCODE_OPTS_DEFAULT};
    return encode(data, write_format, &j, true);
}

/* Rperf::Collapsed.encode(data) */
static VALUE collapsed_encode(VALUE self, VALUE data)
{
    (void)self;
    format_job j = {rp_format_named("collapsed"), RP_ENCODE_OPTS_DEFAULT};
    return encode(data, write_format, &j, false);
}

/* Rperf::Text.encode(data, top_n: 50, header: true) */
static VALUE text_encode(int argc, VALUE *argv, VALUE self)
{
    (void)self;
    VALUE data, kw = Qnil, opt[2] = {Qundef, Qundef};
    ID ids[2] = {rb_intern("top_n"), rb_intern("header")};
    rb_scan_args(argc, argv, "1:", &data, &kw);
    if (!NIL_P(kw))
        rb_get_kwargs(kw, ids, 0, 2, opt);
    format_job j = {rp_format_named("text"), RP_ENCODE_OPTS_DEFAULT};
    if (opt[0] != Qundef)
        j.opts.top = NUM2INT(opt[0]);
    j.opts.no_header = opt[1] != Qundef && !RTEST(opt[1]);
    return encode(data, write_format, &j, false);
}

/* Rperf._encode(data, format) */
static VALUE rperf_encode(VALUE self, VALUE data, VALUE format)
{
    (void)self;
    format_job j = {format_of(format), RP_ENCODE_OPTS_DEFAULT};
    return encode(data, write_format, &j, j.format->binary);
}

/* Rperf._read_meta(path): [meta JSON, summary JSON] from the head of the
 * file (meta_read.h), or [nil, nil] when it has them not or cannot be
 * read. */
static VALUE rperf_read_meta(VALUE self, VALUE path)
{
    (void)self;
    char *meta = NULL, *summary = NULL, err[RP_READ_ERROR_MAX];
    int rc = rp_meta_read(StringValueCStr(path), &meta, &summary, err);
    VALUE pair = rb_ary_new_from_args(2, rc == 1 && meta ? rb_utf8_str_new_cstr(meta) : Qnil,
                                      rc == 1 && summary ? rb_utf8_str_new_cstr(summary) : Qnil);
    free(meta);
    free(summary);
    return pair;
}

static int write_summary(const rp_profile *p, rp_out *out, const void *ctx)
{
    (void)ctx;
    return rp_profile_write_summary(p, out);
}

/* Rperf._summary(data): the summary's JSON text, as a file carries it. */
static VALUE rperf_summary(VALUE self, VALUE data)
{
    (void)self;
    return encode(data, write_summary, NULL, false);
}

/* Rperf._table(data, json, limit): the flat table (table.h), TSV or JSON. */
static VALUE rperf_table(VALUE self, VALUE data, VALUE json, VALUE limit)
{
    (void)self;
    format_job j = {rp_format_named(RTEST(json) ? "table-json" : "table"), RP_ENCODE_OPTS_DEFAULT};
    j.opts.top = NUM2INT(limit);
    return encode(data, write_format, &j, false);
}

/* The diff table's base, made a profile before the head is encoded. */
typedef struct diff_job {
    VALUE base_data, head_data;
    rp_profile base;
    bool has_base, json;
    int rows;
} diff_job;

static int write_table_diff(const rp_profile *head, rp_out *out, const void *ctx)
{
    const diff_job *j = ctx;
    return rp_table_diff_write(&j->base, head, out, j->json, j->rows);
}

static VALUE diff_body(VALUE arg)
{
    diff_job *j = (diff_job *)arg;
    j->has_base = true;
    rp_profile_from_hash(j->base_data, &j->base);
    return encode(j->head_data, write_table_diff, j, false);
}

static VALUE diff_done(VALUE arg)
{
    diff_job *j = (diff_job *)arg;
    if (j->has_base)
        rp_profile_free(&j->base);
    return Qnil;
}

/* Rperf._table_diff(base, head, json, limit): the flat diff table. */
static VALUE rperf_table_diff(VALUE self, VALUE base, VALUE head, VALUE json, VALUE limit)
{
    (void)self;
    diff_job j = {.base_data = base, .head_data = head, .json = RTEST(json), .rows = NUM2INT(limit)};
    return rb_ensure(diff_body, (VALUE)&j, diff_done, (VALUE)&j);
}

/* --- files ------------------------------------------------------------- */

typedef struct saving {
    VALUE path, data;
    const rp_format *format;
    rp_profile profile;
    bool has_profile;
} saving;

static int write_saved(rp_out *out, const void *ctx)
{
    const saving *s = ctx;
    rp_encode_opts opts = RP_ENCODE_OPTS_DEFAULT;
    return s->format->encode(&s->profile, out, &opts);
}

static VALUE save_body(VALUE arg)
{
    saving *s = (saving *)arg;
    s->has_profile = true;
    rp_profile_from_hash(s->data, &s->profile);
    /* as the gem writes a profile: this process's pid and ppid, this version */
    s->profile.meta.pid = getpid();
    s->profile.meta.ppid = getppid();
    s->profile.meta.rperf_version = rp_profile_cstring(&s->profile, RP_VERSION);
    if (s->profile.meta.hostname == RP_IDX_NONE) /* a Hash of Rperf.load keeps its file's meta */
        core->meta_facts(&s->profile);
    const char *path = StringValueCStr(s->path);
    int err = rp_output_file(path, RP_FILE_SHARED, rp_format_compressed(s->format, path), write_saved, s);
    if (err)
        rb_syserr_fail_str(err, s->path);
    return Qnil;
}

static VALUE save_done(VALUE arg)
{
    saving *s = (saving *)arg;
    if (s->has_profile)
        rp_profile_free(&s->profile);
    return Qnil;
}

/* Rperf._save(path, data, format) */
static VALUE rperf_save(VALUE self, VALUE path, VALUE data, VALUE format)
{
    (void)self;
    saving s = {.path = rb_String(path), .data = data, .format = format_of(format)};
    return rb_ensure(save_body, (VALUE)&s, save_done, (VALUE)&s);
}

/* The gem's exception for a file that cannot be read as a profile. */
static void raise_unreadable(VALUE path, rp_read_failure failure, int err, const char *message)
{
    switch (failure) {
    case RP_READ_FAILED_IO:
        rb_syserr_fail_str(err, path);
    case RP_READ_FAILED_GZIP:
        rb_require("zlib");
        rb_raise(rb_path2class("Zlib::GzipFile::Error"), "%" PRIsVALUE ": %s", path, message);
    case RP_READ_FAILED_SYNTAX:
        rb_require("json");
        rb_raise(rb_path2class("JSON::ParserError"), "%" PRIsVALUE ": %s", path, message);
    case RP_READ_FAILED_MEMORY:
        rb_raise(rb_eNoMemError, "%" PRIsVALUE ": %s", path, message);
    default:
        rb_raise(rb_eArgError, "%" PRIsVALUE ": %s", path, message);
    }
}

typedef struct loading {
    VALUE path;
    rp_profile_reader *reader;
    rp_profile profile;
    bool has_profile;
} loading;

static VALUE load_body(VALUE arg)
{
    loading *l = (loading *)arg;
    char err[RP_READ_ERROR_MAX];
    if (!(l->reader = rp_profile_reader_new()) || rp_profile_init(&l->profile, true) != 0)
        rb_raise(rb_eNoMemError, "rperf: out of memory reading %" PRIsVALUE, l->path);
    l->has_profile = true;
    if (rp_profile_reader_read_file(l->reader, &l->profile, StringValueCStr(l->path), err) != 0) {
        int e = 0;
        rp_read_failure failure = rp_profile_reader_failure(l->reader, &e);
        raise_unreadable(l->path, failure, e, err);
    }
    uint32_t v = l->profile.meta.rperf_version;
    return rb_ary_new_from_args(2, rp_profile_hash(&l->profile),
                                v == RP_IDX_NONE ? Qnil : rb_utf8_str_new_cstr(rp_profile_str(&l->profile, v)));
}

static VALUE load_done(VALUE arg)
{
    loading *l = (loading *)arg;
    if (l->has_profile)
        rp_profile_free(&l->profile);
    rp_profile_reader_free(l->reader);
    return Qnil;
}

/* Rperf._load(path) */
static VALUE rperf_load(VALUE self, VALUE path)
{
    (void)self;
    loading l = {.path = rb_String(path)};
    return rb_ensure(load_body, (VALUE)&l, load_done, (VALUE)&l);
}

/* --- summaries ----------------------------------------------------------- */

/* The command the summary names: RPERF_STAT_COMMAND when the program (or
 * `rperf stat`) set it, as the gem does; else the recorded command line;
 * else the gem's "(unknown)". */
static void set_command(rp_profile *p, VALUE command)
{
    rp_meta *m = &p->meta;
    if (!RB_TYPE_P(command, T_STRING)) {
        if (m->command_len > 0)
            return;
        command = rb_str_new_cstr("(unknown)");
    }
    uint32_t *words = malloc(sizeof(uint32_t));
    if (!words)
        return;
    free(m->command);
    m->command = words;
    m->command_len = 0;
    m->command[m->command_len++] = rp_profile_string(p, RSTRING_PTR(command), (size_t)RSTRING_LEN(command));
}

/* The process's facts now, for what `p` lacks: the gem's stat prints them
 * from the process that prints. */
static void add_missing_facts(rp_profile *p, VALUE command)
{
    rp_profile facts;
    if (rp_profile_init(&facts, true) != 0)
        return;
    core->process_facts(&facts);
    rp_meta *m = &p->meta;
    if (!m->has_gc) {
        m->has_gc = facts.meta.has_gc;
        m->gc = facts.meta.gc;
    }
    if (!m->has_os) {
        m->has_os = facts.meta.has_os;
        m->os = facts.meta.os;
    }
    if (!m->has_yjit) {
        m->has_yjit = facts.meta.has_yjit;
        m->yjit_ratio = facts.meta.yjit_ratio;
    }
    if (m->ruby_version == RP_IDX_NONE && facts.meta.ruby_version != RP_IDX_NONE)
        m->ruby_version = rp_profile_cstring(p, rp_profile_str(&facts, facts.meta.ruby_version));
    rp_profile_free(&facts);
    set_command(p, command);
}

typedef struct stat_job {
    bool report;
    VALUE command;
} stat_job;

static int write_stat(const rp_profile *p, rp_out *out, const void *ctx)
{
    const stat_job *j = ctx;
    add_missing_facts((rp_profile *)p, j->command);
    return rp_stat_write(p, out, j->report, RP_REPORT_TOP_DEFAULT);
}

/* Rperf._stat_text(data, report, command) */
static VALUE rperf_stat_text(VALUE self, VALUE data, VALUE report, VALUE command)
{
    (void)self;
    stat_job j = {RTEST(report), command};
    return encode(data, write_stat, &j, false);
}

static int write_verbose(const rp_profile *p, rp_out *out, const void *ctx)
{
    (void)ctx;
    return rp_verbose_write(p, out, 0);
}

/* Rperf._verbose_text(data) */
static VALUE rperf_verbose_text(VALUE self, VALUE data)
{
    (void)self;
    return encode(data, write_verbose, NULL, false);
}

/* --- a session's processes ----------------------------------------------- */

typedef struct merging {
    VALUE dir, data;
    rp_profile merged, own;
    bool has_merged, has_own;
} merging;

static VALUE merge_body(VALUE arg)
{
    merging *m = (merging *)arg;
    char *dir = StringValueCStr(m->dir);
    rp_load_spec spec = {.keep_lines = true};
    m->has_merged = true;
    if (rp_load_paths(&dir, 1, &spec, &m->merged) != 0)
        return Qnil; /* said on stderr; the caller falls back to its own data */
    m->has_own = true;
    rp_profile_from_hash(m->data, &m->own);
    char err[RP_MERGE_ERROR_MAX];
    if (rp_merge_into(&m->merged, &m->own, (size_t)m->merged.meta.process_count, true, err) != 0)
        rb_raise(rb_eNoMemError, "rperf: %s", err);
    return rp_profile_hash(&m->merged);
}

static VALUE merge_done(VALUE arg)
{
    merging *m = (merging *)arg;
    if (m->has_merged)
        rp_profile_free(&m->merged);
    if (m->has_own)
        rp_profile_free(&m->own);
    return Qnil;
}

/* Rperf._merge_dir(dir, data): nil when the directory gives nothing. */
static VALUE rperf_merge_dir(VALUE self, VALUE dir, VALUE data)
{
    (void)self;
    merging m = {.dir = rb_String(dir), .data = data};
    return rb_ensure(merge_body, (VALUE)&m, merge_done, (VALUE)&m);
}

void rp_formats_define(VALUE rperf, const rp_core_api *c)
{
    core = c;
    rp_diag_set_program("rperf");
    VALUE pprof = rb_define_module_under(rperf, "PProf");
    rb_define_module_function(pprof, "encode", pprof_encode, 1);
    VALUE collapsed = rb_define_module_under(rperf, "Collapsed");
    rb_define_module_function(collapsed, "encode", collapsed_encode, 1);
    VALUE text = rb_define_module_under(rperf, "Text");
    rb_define_module_function(text, "encode", text_encode, -1);
    rb_define_singleton_method(rperf, "_encode", rperf_encode, 2);
    rb_define_singleton_method(rperf, "_table", rperf_table, 3);
    rb_define_singleton_method(rperf, "_read_meta", rperf_read_meta, 1);
    rb_define_singleton_method(rperf, "_summary", rperf_summary, 1);
    rb_define_singleton_method(rperf, "_table_diff", rperf_table_diff, 4);
    rb_define_singleton_method(rperf, "_save", rperf_save, 3);
    rb_define_singleton_method(rperf, "_load", rperf_load, 1);
    rb_define_singleton_method(rperf, "_stat_text", rperf_stat_text, 3);
    rb_define_singleton_method(rperf, "_verbose_text", rperf_verbose_text, 1);
    rb_define_singleton_method(rperf, "_merge_dir", rperf_merge_dir, 2);
}
