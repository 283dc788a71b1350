/*
 * rperf/manual.h — what `rperf help` prints: manual.txt, compiled in at
 * build time (profile/viewer/embed.c), so that it stays a text file to
 * edit.
 */
#ifndef RPERF_RPERF_MANUAL_H
#define RPERF_RPERF_MANUAL_H

#include <stddef.h>

extern const char rperf_manual[];
extern const size_t rperf_manual_len;

#endif
