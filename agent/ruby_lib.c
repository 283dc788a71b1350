/*
 * agent/ruby_lib.c — the agent's Ruby folder. See ruby_lib.h.
 *
 * Context: main thread inside the interposed ruby_init, GVL held: the VM
 * is up and $LOAD_PATH exists (the standard entries, -I and RUBYLIB are
 * added after it, by ruby_options).
 */
#include "ruby_lib.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "ruby_api.h"

/* Where the folder is, relative to the agent's own directory: installed
 * (<libdir>/rperf/ruby) and in the build tree (build/agent/ruby). */
static const char *const candidates[] = {"rperf/ruby", "ruby"};

static bool installed;

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* The folder next to `agent_path` whose rperf/rperf_agent.so is this very
 * agent, into `out`; false when there is none. */
static bool find_folder(const char *agent_path, char *out, size_t size)
{
    char dir[PATH_MAX];
    if (!realpath(agent_path, dir))
        return false;
    char *slash = strrchr(dir, '/');
    if (!slash)
        return false;
    *slash = '\0';
    for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
        char link[PATH_MAX + 64];
        int n = snprintf(out, size, "%s/%s", dir, candidates[i]);
        if (n < 0 || (size_t)n >= size)
            continue;
        snprintf(link, sizeof(link), "%s/rperf/rperf_agent.so", out);
        if (same_file(link, agent_path))
            return true;
    }
    return false;
}

void rp_ruby_lib_install(bool verbose)
{
    Dl_info self;
    char folder[PATH_MAX];
    if (!dladdr((void *)rp_ruby_lib_install, &self) || !self.dli_fname ||
        !find_folder(self.dli_fname, folder, sizeof(folder))) {
        if (verbose)
            rp_log("the agent's Ruby files (rperf/ruby next to %s) are missing; "
                   "require \"rperf\" will not find the agent's API",
                   self.dli_fname ? self.dli_fname : "librperf-agent.so");
        return;
    }
    VALUE load_path = rb_gv_get("$LOAD_PATH");
    if (!RB_TYPE_P(load_path, T_ARRAY))
        return;
    rb_ary_unshift(load_path, rb_obj_freeze(rb_str_new_cstr(folder)));
    installed = true;
}

bool rp_ruby_lib_installed(void)
{
    return installed;
}
