/*
 * agent/base/child_env.c — children's environment. See child_env.h.
 *
 * Context: rp_child_env runs inside the interposed execve/execv, which Ruby
 * also calls in vfork children: it only reads, compares and copies, into
 * buffers on the caller's stack.
 */
#include "child_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRELOAD_PREFIX "LD_PRELOAD="

static bool active;
static bool inherit;
static char session_entry[4200]; /* _RPERF_SESSION=<root pid>:<dir> */
static char adopted_entry[4200]; /* the one this process was given, or "" */
static char agent_file[256];     /* e.g. librperf-agent.so */

void rp_child_env_init(const char *session_dir, long root_pid, bool inherit_children,
                       const char *agent_name)
{
    snprintf(session_entry, sizeof(session_entry), RP_SESSION_VAR "=%ld:%s", root_pid, session_dir);
    const char *slash = strrchr(agent_name, '/');
    snprintf(agent_file, sizeof(agent_file), "%s", slash ? slash + 1 : agent_name);
    inherit = inherit_children;
    active = true;
}

static bool has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool is_separator(char c)
{
    return c == ':' || c == ' ';
}

/* Whether the LD_PRELOAD value names a file called `name`. */
static bool preload_names(const char *preload, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = preload; *p;) {
        size_t len = strcspn(p, ": ");
        const char *base = p + len;
        while (base > p && base[-1] != '/')
            base--;
        if ((size_t)(p + len - base) == n && memcmp(base, name, n) == 0)
            return true;
        p += len;
        while (*p && is_separator(*p))
            p++;
    }
    return false;
}

void rp_child_env_strip_preload(const char *preload, const char *agent_name, char *out, size_t size)
{
    size_t used = 0, n = strlen(agent_name);
    out[0] = '\0';
    for (const char *p = preload; *p;) {
        size_t len = strcspn(p, ": ");
        const char *base = p + len;
        while (base > p && base[-1] != '/')
            base--;
        bool agent = (size_t)(p + len - base) == n && memcmp(base, agent_name, n) == 0;
        if (len > 0 && !agent && used + len + 2 <= size) {
            if (used)
                out[used++] = ':';
            memcpy(out + used, p, len);
            used += len;
            out[used] = '\0';
        }
        p += len;
        while (*p && is_separator(*p))
            p++;
    }
}

void rp_child_env_adopt(void)
{
    const char *value = getenv(RP_SESSION_VAR);
    if (!value)
        return;
    snprintf(adopted_entry, sizeof(adopted_entry), RP_SESSION_VAR "=%s", value);
    unsetenv(RP_SESSION_VAR);
}

bool rp_child_env_take_session(long *root_pid, char *dir, size_t dir_size)
{
    const char *value = adopted_entry + strlen(RP_SESSION_VAR "=");
    char *end;
    if (!adopted_entry[0])
        return false;
    long pid = strtol(value, &end, 10);
    if (pid <= 0 || *end != ':' || end[1] != '/' || strlen(end + 1) >= dir_size)
        return false;
    *root_pid = pid;
    strcpy(dir, end + 1);
    return true;
}

size_t rp_child_env_capacity(char *const envp[])
{
    size_t n = 0;
    while (envp && envp[n])
        n++;
    return n + 2; /* + the session, NULL */
}

size_t rp_child_env_scratch_size(char *const envp[])
{
    for (size_t i = 0; envp && envp[i]; i++)
        if (has_prefix(envp[i], PRELOAD_PREFIX))
            return strlen(envp[i]) + 1;
    return 1;
}

char *const *rp_child_env(char *const envp[], char **out, char *scratch, size_t scratch_size)
{
    /* a profiled process hands on its session; another one, what it got */
    const char *entry = active ? session_entry : adopted_entry;
    if (!entry[0] || !envp)
        return envp;
    const char *preload = NULL;
    for (size_t i = 0; envp[i]; i++)
        if (has_prefix(envp[i], PRELOAD_PREFIX))
            preload = envp[i] + strlen(PRELOAD_PREFIX);
    /* a child that will not load the agent gets its environment untouched */
    if (!preload || !preload_names(preload, agent_file))
        return envp;
    size_t n = 0;
    for (size_t i = 0; envp[i]; i++) {
        if (has_prefix(envp[i], RP_SESSION_VAR "="))
            continue; /* replaced by ours below */
        if (active && !inherit && has_prefix(envp[i], PRELOAD_PREFIX)) {
            memcpy(scratch, PRELOAD_PREFIX, strlen(PRELOAD_PREFIX));
            size_t head = strlen(PRELOAD_PREFIX);
            rp_child_env_strip_preload(preload, agent_file, scratch + head, scratch_size - head);
            out[n++] = scratch;
            continue;
        }
        out[n++] = envp[i];
    }
    if (!active || inherit)
        out[n++] = (char *)entry;
    out[n] = NULL;
    return out;
}
