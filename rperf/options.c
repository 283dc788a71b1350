/*
 * rperf/options.c — reading `rperf`'s options. See options.h.
 */
#include "options.h"

#include <string.h>

#include "tools.h"

int rperf_opt_value(int argc, char **argv, int *i, const char *shrt, const char *lng, const char **value,
                    rperf_usage_fn *usage)
{
    const char *arg = argv[*i];
    size_t n = strlen(lng);
    if (strncmp(arg, lng, n) == 0 && arg[n] == '=') {
        *value = arg + n + 1;
        return 1;
    }
    if (strcmp(arg, lng) != 0 && !(shrt && strcmp(arg, shrt) == 0))
        return 0;
    if (*i + 1 >= argc) {
        rperf_usage_error(usage, "missing argument: %s", arg);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

bool rperf_opt_flag(const char *arg, const char *shrt, const char *lng)
{
    return strcmp(arg, lng) == 0 || (shrt && strcmp(arg, shrt) == 0);
}

bool rperf_opt_alloc(const char *arg, const char **value)
{
    if (strcmp(arg, "--alloc") == 0)
        *value = RPERF_ALLOC_DEFAULT;
    else if (strncmp(arg, "--alloc=", 8) == 0)
        *value = arg + 8;
    else
        return false;
    return true;
}
