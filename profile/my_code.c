/*
 * profile/my_code.c — the application's own code, and everyone else's.
 * See my_code.h.
 */
#include "my_code.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/vec.h"
#include "diag.h"
#include "schema.h"

static rp_code_origin library(const char *name, int name_len, size_t dir_len)
{
    rp_code_origin o = {.code = RP_CODE_LIBRARY, .dir_len = dir_len};
    snprintf(o.name, sizeof(o.name), "%.*s", name_len, name);
    return o;
}

/* "NAME-VERSION" (a version starts with a digit: "net-http-0.4.1",
 * "nokogiri-1.16.0-x86_64-linux") as "NAME VERSION"; with `any_rev`
 * (Bundler's git checkouts, "rails-a1b2c3d4e5f6") the last '-' splits. */
static bool gem_name(const char *dir, size_t len, bool any_rev, rp_code_origin *o, size_t dir_end)
{
    const char *dash = NULL;
    for (const char *c = dir; c < dir + len; c++)
        if (*c == '-' && c > dir && c + 1 < dir + len && (any_rev || isdigit((unsigned char)c[1]))) {
            dash = c;
            if (!any_rev)
                break;
        }
    if (!dash)
        return false;
    *o = library(dir, (int)(dash - dir), dir_end);
    snprintf(o->name + strlen(o->name), sizeof(o->name) - strlen(o->name), " %.*s",
             (int)(len - (size_t)(dash + 1 - dir)), dash + 1);
    return true;
}

/* The innermost ".../gems/NAME-VERSION/" directory of `path`, if any. */
static bool gem_of(const char *path, rp_code_origin *o)
{
    bool found = false;
    for (const char *at = strstr(path, "/gems/"); at; at = strstr(at + 1, "/gems/")) {
        const char *dir = at + strlen("/gems/"), *end = strchr(dir, '/');
        if (!end)
            break; /* a file, not a directory */
        bool bundler = at - path >= 8 && memcmp(at - 8, "/bundler", 8) == 0;
        if (gem_name(dir, (size_t)(end - dir), bundler, o, (size_t)(end - path)))
            found = true;
    }
    return found;
}

/* Ruby's own library: ".../lib/ruby/3.4.0/", site_ruby, vendor_ruby. */
static bool ruby_library_of(const char *path, rp_code_origin *o)
{
    for (const char *at = strstr(path, "/lib/ruby/"); at; at = strstr(at + 1, "/lib/ruby/")) {
        const char *dir = at + strlen("/lib/ruby/"), *end = strchr(dir, '/');
        if (!end)
            break;
        size_t len = (size_t)(end - dir);
        if (isdigit((unsigned char)dir[0]) || (len == 9 && memcmp(dir, "site_ruby", 9) == 0) ||
            (len == 11 && memcmp(dir, "vendor_ruby", 11) == 0)) {
            *o = library("ruby", 4, (size_t)(end - path));
            return true;
        }
    }
    return false;
}

rp_code_origin rp_code_of(const char *label, const char *path)
{
    rp_code_origin o = {.code = RP_CODE_APP};
    if (strcmp(path, RP_C_METHOD_PATH) == 0)
        return (rp_code_origin){.code = RP_CODE_CALLERS};
    if (strncmp(path, "<internal:", 10) == 0) /* the VM's own Ruby (Kernel#tap, RubyGems' require) */
        return library("ruby", 4, 0);
    if (gem_of(path, &o) || ruby_library_of(path, &o))
        return o;
    if (strncmp(label, "Rperf.", 6) == 0 || strncmp(label, "Rperf::", 7) == 0)
        return library("rperf", 5, 0);
    return (rp_code_origin){.code = RP_CODE_APP};
}

int rp_frame_code_compute(const rp_profile *p, rp_frame_code *out)
{
    *out = (rp_frame_code){0};
    rp_strtab_init(&out->names);
    out->code = malloc((p->frame_count ? p->frame_count : 1) * sizeof(*out->code));
    if (!out->code)
        return -1;
    for (size_t f = 0; f < p->frame_count; f++) {
        rp_code_origin o = rp_code_of(rp_profile_str(p, p->frames[f].label), rp_profile_str(p, p->frames[f].path));
        if (o.code != RP_CODE_LIBRARY) {
            out->code[f] = o.code == RP_CODE_APP ? RP_FRAME_APP : RP_FRAME_CALLERS;
            continue;
        }
        size_t known = out->names.count;
        uint32_t id = rp_strtab_intern(&out->names, o.name, strlen(o.name));
        if (id == RP_IDX_NONE || (id == known && RP_VEC_RESERVE(out->dirs, out->dirs_cap, known + 1) != 0))
            return -1;
        if (id == known)
            out->dirs[id] = (rp_library_dir){p->frames[f].path, o.dir_len};
        out->code[f] = (int32_t)id;
    }
    return 0;
}

void rp_frame_code_free(rp_frame_code *fc)
{
    free(fc->code);
    free(fc->dirs);
    rp_strtab_free(&fc->names);
    *fc = (rp_frame_code){0};
}

/* The frame that stands for library `lib`: label "[NAME]", path its
 * directory (copied first: interning may move the profile's strings).
 * RP_IDX_NONE when out of memory. */
static uint32_t library_frame(rp_profile *p, const rp_frame_code *fc, uint32_t lib)
{
    char label[RP_LIBRARY_NAME_MAX + 2];
    snprintf(label, sizeof(label), "[%s]", rp_strtab_get(&fc->names, lib, NULL));
    const rp_library_dir *d = &fc->dirs[lib];
    char *dir = strndup(rp_profile_str(p, d->path), d->len);
    uint32_t path = dir ? rp_profile_string(p, dir, d->len) : RP_IDX_NONE;
    uint32_t name = rp_profile_cstring(p, label);
    free(dir);
    return name == RP_IDX_NONE || path == RP_IDX_NONE ? RP_IDX_NONE : rp_profile_frame(p, path, name);
}

/* --- the my-code view of a profile ---------------------------------------------- */

/* Per frame: RP_CODE_APP's frames map to themselves, a library's to its
 * library frame, a C method to RP_IDX_NONE (its caller's). */
#define CALLERS_FRAME RP_IDX_NONE

static uint32_t *library_frames(rp_profile *p)
{
    size_t count = p->frame_count;
    rp_frame_code fc;
    bool ok = rp_frame_code_compute(p, &fc) == 0;
    uint32_t *out = malloc((count ? count : 1) * sizeof(*out)), *frame_of_library = NULL;
    ok = ok && out && (frame_of_library = malloc((fc.names.count ? fc.names.count : 1) * sizeof(*frame_of_library)));
    for (uint32_t lib = 0; ok && lib < fc.names.count; lib++)
        ok = (frame_of_library[lib] = library_frame(p, &fc, lib)) != RP_IDX_NONE;
    for (size_t f = 0; ok && f < count; f++)
        out[f] = fc.code[f] == RP_FRAME_APP ? (uint32_t)f
                 : fc.code[f] == RP_FRAME_CALLERS ? CALLERS_FRAME : frame_of_library[fc.code[f]];
    free(frame_of_library);
    rp_frame_code_free(&fc);
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}

/* Stack `id` of `p` with its runs of library frames collapsed, interned
 * in `into`. Library frames are those from `base_frames` on. */
static uint32_t collapse_stack(const rp_profile *p, uint32_t id, const uint32_t *lib_of, size_t base_frames,
                               rp_stack_table *into, uint32_t **buf, size_t *cap)
{
    uint32_t depth;
    const uint32_t *frames = rp_stack_table_get(&p->stacks, id, &depth);
    if (*cap < depth) {
        uint32_t *grown = realloc(*buf, depth * sizeof(**buf));
        if (!grown)
            return RP_IDX_NONE;
        *buf = grown;
        *cap = depth;
    }
    /* from the root (the end: stacks are leaf first) to the leaf */
    uint32_t n = 0;
    bool in_run = false;
    for (uint32_t i = depth; i-- > 0;) {
        uint32_t f = frames[i], shown = lib_of[f];
        bool library = shown == CALLERS_FRAME ? in_run : shown >= base_frames;
        if (library && in_run)
            continue; /* the run goes on, whichever library it is in now */
        in_run = library;
        (*buf)[n++] = shown == CALLERS_FRAME ? f : shown;
    }
    for (uint32_t i = 0; i < n / 2; i++) { /* back to leaf first */
        uint32_t t = (*buf)[i];
        (*buf)[i] = (*buf)[n - 1 - i];
        (*buf)[n - 1 - i] = t;
    }
    return rp_stack_table_intern(into, *buf, n);
}

/* `table` with its stacks mapped through `stack_of`, into `out`. */
static int remap_table(const rp_sample_table *table, const uint32_t *stack_of, rp_sample_table *out)
{
    rp_sample_table_init(out, table->aggregate);
    for (size_t i = 0; i < table->count; i++) {
        const rp_sample *s = &table->samples[i];
        if (rp_sample_table_add_at(out, stack_of[s->stack], s->thread_seq, s->label_set, s->weight,
                                   rp_sample_time(table, i)) != RP_SAMPLE_OK)
            return -1;
    }
    return 0;
}

int rp_my_code_apply(rp_profile *p)
{
    size_t base_frames = p->frame_count, stacks = p->stacks.count;
    uint32_t *lib_of = library_frames(p);
    uint32_t *stack_of = malloc((stacks ? stacks : 1) * sizeof(*stack_of));
    rp_stack_table collapsed;
    rp_stack_table_init(&collapsed);
    uint32_t *buf = NULL;
    size_t cap = 0;
    int rc = lib_of && stack_of ? 0 : -1;
    for (size_t s = 0; rc == 0 && s < stacks; s++) {
        stack_of[s] = collapse_stack(p, (uint32_t)s, lib_of, base_frames, &collapsed, &buf, &cap);
        rc = stack_of[s] == RP_IDX_NONE ? -1 : 0;
    }
    /* every table rewritten aside, then all swapped in: a failure
     * leaves the profile as it was */
    rp_sample_table remapped[RP_MEASURES];
    int done = 0;
    for (; rc == 0 && done < RP_MEASURES; done++)
        rc = remap_table(rp_profile_table(p, (rp_measure)done), stack_of, &remapped[done]);
    for (int k = 0; k < done; k++) {
        rp_sample_table *table = rp_profile_table(p, (rp_measure)k);
        rp_sample_table_free(rc == 0 ? table : &remapped[k]);
        if (rc == 0)
            *table = remapped[k];
    }
    if (rc == 0) {
        rp_stack_table_free(&p->stacks);
        p->stacks = collapsed;
    } else {
        rp_stack_table_free(&collapsed);
        rp_error("--my-code: out of memory");
    }
    free(buf);
    free(stack_of);
    free(lib_of);
    return rc;
}
