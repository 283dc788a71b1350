/*
 * profile/my_code.h — the application's own code, and everyone else's.
 *
 * Owns: which code a frame is — the application's, or a library's (a
 * gem, Ruby's own library and VM, this profiler's Ruby API) — and the
 * "my code" view that follows from it (--my-code, the viewer's switch):
 * each run of consecutive library frames in a stack becomes one frame
 * named for the library the run began in ("[activerecord 8.1.4.1]": what
 * the application called, and all it called until the application's code
 * again, sqlite3 and activesupport too; "[puma 7.1.0]" for the way from
 * a server's thread through Rack and Rails to a controller), so that the
 * application's methods stand out, a few boxes from the root. A C method
 * belongs with whoever called it: inside a run it is the run's, called by
 * the application it stays itself (what the application called:
 * Kernel#sleep, Array#each).
 *
 * The rules, first that applies: a path under a gem's directory
 * (".../gems/NAME-VERSION/", Bundler's ".../bundler/gems/NAME-REV/") is
 * that gem's; under Ruby's library (".../lib/ruby/X.Y.Z/", site_ruby,
 * vendor_ruby) or "<internal:...>", Ruby's; a method of Rperf, this
 * profiler's; any other file is the application's — its directory (the
 * profile's cwd), a script run from elsewhere, an eval: what is not
 * known to be someone else's is never hidden from its owner. (A guess
 * from the path's shape, such as "a lib/ outside the program's
 * directory is a library's", would hide a checkout under /var/lib.)
 */
#ifndef RPERF_PROFILE_MY_CODE_H
#define RPERF_PROFILE_MY_CODE_H

#include <stddef.h>

#include "profile.h"

typedef enum rp_code {
    RP_CODE_APP,     /* the application's own */
    RP_CODE_LIBRARY, /* a library's: `name` says which */
    RP_CODE_CALLERS, /* a C method: its caller's */
} rp_code;

#define RP_LIBRARY_NAME_MAX 160

typedef struct rp_code_origin {
    rp_code code;
    char name[RP_LIBRARY_NAME_MAX]; /* a library's: "actionpack 8.1.4.1", "ruby", "rperf" */
    size_t dir_len; /* a library's directory: the path's first dir_len bytes (0: none) */
} rp_code_origin;

/* Which code the frame of `label` in file `path` is. */
rp_code_origin rp_code_of(const char *label, const char *path);

/* Whose code each frame of a profile is: per frame RP_FRAME_APP, RP_FRAME_CALLERS
 * or the index of its library; the libraries by name, ids in order of
 * first use, each with the directory it was first met in (a string of
 * the profile: its first dir_len bytes). What --my-code and the page's
 * switch both start from. */
#define RP_FRAME_APP (-1)
#define RP_FRAME_CALLERS (-2)

typedef struct rp_library_dir {
    uint32_t path; /* string id */
    size_t len;
} rp_library_dir;

typedef struct rp_frame_code {
    int32_t *code; /* per frame of the profile */
    rp_strtab names;
    rp_library_dir *dirs; /* per library */
    size_t dirs_cap;
} rp_frame_code;

/* Returns 0, or -1 when out of memory (free it either way). */
int rp_frame_code_compute(const rp_profile *p, rp_frame_code *out);
void rp_frame_code_free(rp_frame_code *fc);

/* --my-code: every stack of `p` with its runs of library frames
 * collapsed, in every measure. Returns 0, or -1 after an error line (out
 * of memory; `p` may then hold unused frames and stacks but its samples
 * are as they were). */
int rp_my_code_apply(rp_profile *p);

#endif
