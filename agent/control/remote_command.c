/*
 * agent/control/remote_command.c — a command's text into a request. See
 * remote_command.h.
 */
#include "remote_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/config.h"

/* The value of `key=` among the lines of `command`, or NULL. */
static const char *find_value(const char *command, const char *key)
{
    size_t len = strlen(key);
    for (const char *line = command; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (strncmp(line, key, len) == 0 && line[len] == '=')
            return line + len + 1;
    return NULL;
}

/* A whole-number value in [min, max] (or `fallback` when absent). */
static bool number(const char *text, long fallback, long min, long max, long *out)
{
    if (!text) {
        *out = fallback;
        return true;
    }
    char *end;
    long v = strtol(text, &end, 10);
    *out = v;
    return end != text && *end == '\0' && v >= min && v <= max;
}

static bool refuse(char *why, size_t size, const char *what)
{
    snprintf(why, size, "%s", what);
    return false;
}

bool rp_remote_parse(char *command, rp_remote_request *r, char *why, size_t size)
{
    memset(r, 0, sizeof(*r));
    const char *reply = find_value(command, "reply"), *dir = find_value(command, "dir");
    const char *mode = find_value(command, "mode"), *freq = find_value(command, "frequency");
    const char *alloc = find_value(command, "alloc"), *expires = find_value(command, "expires");
    const char *watch = find_value(command, "watch"), *limit = find_value(command, "limit_s");
    size_t verb_len = strcspn(command, "\n");
    if (verb_len < sizeof(r->verb))
        memcpy(r->verb, command, verb_len);
    for (char *nl = strchr(command, '\n'); nl; nl = strchr(nl + 1, '\n'))
        *nl = '\0'; /* each value ends at its line's end */
    r->reply = reply && reply[0] == '/' ? reply : NULL;
    r->dir = dir;
    r->mode = mode;
    long expiry = 0;
    if (!r->reply)
        return refuse(why, size, "no reply file (an absolute path)");
    if (!number(expires, 0, 0, INT64_MAX, &expiry))
        return refuse(why, size, "malformed expires=");
    r->expires_ns = expiry;
    if (strcmp(r->verb, "start") == 0) {
        if (!dir || dir[0] != '/')
            return refuse(why, size, "start: no dir= (an absolute path)");
        if (!mode || (strcmp(mode, "cpu") != 0 && strcmp(mode, "wall") != 0))
            return refuse(why, size, "start: mode= must be cpu or wall");
        if (!number(freq, RP_FREQUENCY_DEFAULT, RP_FREQUENCY_MIN, RP_FREQUENCY_MAX, &r->frequency))
            return refuse(why, size, "start: frequency= must be 1..10000");
        if (!number(alloc, 0, 0, RP_ALLOC_RATE_MAX, &r->alloc))
            return refuse(why, size, "start: alloc= must be 0..100000000");
        if (!number(watch, 0, 0, 4194304, &r->watch))
            return refuse(why, size, "start: watch= must be a process id");
        if (!number(limit, 0, 0, 31536000, &r->limit_s))
            return refuse(why, size, "start: limit_s= must be 0..31536000 seconds");
        return true;
    }
    if (strcmp(r->verb, "snapshot") == 0) {
        if (!dir || dir[0] != '/')
            return refuse(why, size, "snapshot: no dir= (an absolute path)");
        return true;
    }
    if (strcmp(r->verb, "stop") == 0 || strcmp(r->verb, "status") == 0)
        return true;
    snprintf(why, size, "unknown command '%.15s'", r->verb);
    return false;
}
