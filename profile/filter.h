/*
 * profile/filter.h — the stage between loading and encoding.
 *
 * Owns: turning the merged profile of a session into what the command
 * shows: the samples --tagfocus and --tagignore select (by label value,
 * as go tool pprof's options do), and method-level frames unless lines
 * are wanted (or the format carries them). Time windows belong here too.
 */
#ifndef RPERF_ANALYZER_FILTER_H
#define RPERF_ANALYZER_FILTER_H

#include <stdbool.h>

#include "profile.h"
#include "../analyzer/options.h"

/* Applies the filters `o` asks for to `p` in place; `keep_lines` when the
 * output carries lines whatever the options say. Returns 0, or -1 after an
 * error line (out of memory; `p` is then unchanged). */
int rp_filter_apply(rp_profile *p, const rp_options *o, bool keep_lines);

#endif
