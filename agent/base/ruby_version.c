/*
 * agent/base/ruby_version.c — the Ruby the agent runs in. See
 * ruby_version.h.
 */
#include "ruby_version.h"

#include <stdio.h>
#include <unistd.h>

#define STR2(x) #x
#define STR(x) STR2(x)

void rp_ruby_version_mismatch(char *buf, size_t size)
{
    char exe[256] = "?";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0)
        exe[n] = '\0';
    char running[32];
    if (&ruby_version)
        snprintf(running, sizeof(running), "%s", ruby_version);
    else if (&ruby_api_version)
        snprintf(running, sizeof(running), "%d.%d", ruby_api_version[0], ruby_api_version[1]);
    else
        snprintf(running, sizeof(running), "of unknown version");
    snprintf(buf, size,
             "not profiling this process: it runs Ruby %s (%s) and this agent is built for Ruby "
             "%s; build rperf against this Ruby (meson setup BUILD -Druby=%s)",
             running, exe, STR(RUBY_API_VERSION_MAJOR) "." STR(RUBY_API_VERSION_MINOR), exe);
}
