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

int rperf_opt_selection(int argc, char **argv, int *i, const char **passed, int *n, int max,
                        rperf_usage_fn *usage)
{
    static const char *const with_value[] = {"--tagfocus", "--tagignore", "--since", "--until", "--measure"};
    const char *a = argv[*i], *value;
    if (strcmp(a, "--hide-idle") == 0 || strcmp(a, "--lines") == 0 || strcmp(a, "--my-code") == 0) {
        if (*n < max)
            passed[(*n)++] = a;
        return 1;
    }
    for (size_t k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++) {
        int got = rperf_opt_value(argc, argv, i, NULL, with_value[k], &value, usage);
        if (got < 0)
            return -1;
        if (got > 0) {
            if (*n + 2 <= max) {
                passed[(*n)++] = with_value[k];
                passed[(*n)++] = value;
            }
            return 1;
        }
    }
    return 0;
}
