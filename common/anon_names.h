/*
 * common/anon_names.h — names of anonymous and singleton receivers that
 * are the same in every run.
 *
 * Owns: leaving out the ":0x0000..." address Ruby puts in the name of an
 * anonymous module or a singleton's receiver ("#<Module:0x...>::Foo" →
 * "#<Module>::Foo", "#<Array:0x...>.resolve" → "#<Array>.resolve"), as
 * the gem and pprof users expect when they diff two runs. Header-only.
 */
#ifndef RPERF_COMMON_ANON_NAMES_H
#define RPERF_COMMON_ANON_NAMES_H

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>

/* Whether name[0..len) holds an address to leave out. */
static inline bool rp_name_has_address(const char *name, size_t len)
{
    for (size_t i = 0; i + 2 < len; i++)
        if (name[i] == ':' && name[i + 1] == '0' && name[i + 2] == 'x')
            return true;
    return false;
}

/* Copies name[0..len) into buf[size] without its ":0x<hex>" parts;
 * returns the length written (cut to fit, NUL-terminated). */
static inline size_t rp_name_without_addresses(const char *name, size_t len, char *buf, size_t size)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n + 1 < size; i++) {
        if (name[i] == ':' && i + 2 < len && name[i + 1] == '0' && name[i + 2] == 'x') {
            for (i += 3; i < len && isxdigit((unsigned char)name[i]); i++)
                ;
            i--;
            continue;
        }
        buf[n++] = name[i];
    }
    if (size)
        buf[n] = '\0';
    return n;
}

#endif
