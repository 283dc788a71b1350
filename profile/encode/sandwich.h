/*
 * profile/encode/sandwich.h — one method's callers and callees
 * (rperf-analyze report --callers METHOD / --callees METHOD).
 *
 * Owns: every call path through the method, merged: the tree of its
 * callers (the method at the top, each caller under what it called, up to
 * the stacks' roots) and the tree of its callees (the method at the top,
 * down to the leaves), each node with its total weight and, in the
 * callees' tree, its self weight (the weight ending there). A stack that
 * holds the method twice (recursion) counts once, at its outermost call.
 * Methods are matched by name ("label (path)", as the report names them):
 * the whole name, or a part of it that only one method's name holds.
 */
#ifndef RPERF_PROFILE_SANDWICH_H
#define RPERF_PROFILE_SANDWICH_H

#include <stdbool.h>

#include "../../common/out.h"
#include "../profile.h"

/* Writes the callers' tree, the callees' tree or both. Returns 0, 1 when
 * `method` names no method or several (said on stderr), -1 when out of
 * memory. */
int rp_sandwich_write(const rp_profile *p, rp_out *out, const char *method, bool callers, bool callees);

#endif
