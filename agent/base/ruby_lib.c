/*
 * agent/base/ruby_lib.c — the agent's Ruby folder. See ruby_lib.h.
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

static char installed[PATH_MAX]; /* the folder put on $LOAD_PATH, or "" */

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The folder next to `agent_path` that holds rperf.rb and the extension
 * built with this agent, into `out`; false when there is none. */
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
        char rb[PATH_MAX + 64], ext[PATH_MAX + 64];
        int n = snprintf(out, size, "%s/%s", dir, candidates[i]);
        if (n < 0 || (size_t)n >= size)
            continue;
        snprintf(rb, sizeof(rb), "%s/rperf.rb", out);
        snprintf(ext, sizeof(ext), "%s/" RP_RUBY_EXTENSION, out);
        if (is_file(rb) && is_file(ext))
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
    snprintf(installed, sizeof(installed), "%s", folder);
}

const char *rp_ruby_lib_folder(void)
{
    return installed[0] ? installed : NULL;
}
