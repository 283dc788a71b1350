/*
 * agent/inherit.c — RPERF_INHERIT=0. See inherit.h.
 * Context: main thread inside ruby_init, before any Ruby code runs.
 */
#include "inherit.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool names_agent(const char *entry, const char *agent_path)
{
    char resolved[PATH_MAX];
    if (strcmp(base_name(entry), base_name(agent_path)) == 0)
        return true;
    return realpath(entry, resolved) && strcmp(resolved, agent_path) == 0;
}

void rp_inherit_strip(const char *preload, const char *agent_path, char *out, size_t size)
{
    /* ld.so separates LD_PRELOAD entries with spaces or colons. */
    size_t used = 0;
    const char *p = preload;
    out[0] = '\0';
    while (*p) {
        size_t len = strcspn(p, ": ");
        char entry[PATH_MAX];
        if (len > 0 && len < sizeof(entry)) {
            memcpy(entry, p, len);
            entry[len] = '\0';
            if (!names_agent(entry, agent_path) && used + len + 2 <= size) {
                if (used)
                    out[used++] = ':';
                memcpy(out + used, entry, len);
                used += len;
                out[used] = '\0';
            }
        }
        p += len;
        p += strspn(p, ": ");
    }
}

void rp_inherit_disable(void)
{
    const char *preload = getenv("LD_PRELOAD");
    Dl_info self;
    char agent_path[PATH_MAX];
    if (!preload || !dladdr((void *)rp_inherit_disable, &self) || !self.dli_fname ||
        !realpath(self.dli_fname, agent_path))
        return;
    char *rest = malloc(strlen(preload) + 1);
    if (!rest)
        return;
    rp_inherit_strip(preload, agent_path, rest, strlen(preload) + 1);
    if (*rest)
        setenv("LD_PRELOAD", rest, 1);
    else
        unsetenv("LD_PRELOAD");
    free(rest);
}
