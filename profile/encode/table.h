/*
 * profile/encode/table.h — flat tables for tools and language models.
 *
 * Owns: the gem's `--format table` and `table-json` (rperf report and
 * rperf diff, Rperf::Table): one row per method name (a method defined
 * under several paths counts once), computed here so that a script or a
 * language model reads a finished table instead of walking stacks.
 *   report: method, self_pct, total_pct, self_ms — self_pct descending,
 *           the top rows and an "(other)" row for the rest;
 *   diff:   method, self_pct_base, self_pct_head, delta_pt (head − base,
 *           percentage points) — |delta_pt| descending, the top rows.
 * TSV ends with a "# summary" line of tab-separated key=value pairs (time,
 * CPU, allocations, GC counts; base/head/delta for a diff); JSON is an
 * array of row objects whose last element is {"summary": {...}}. Numbers
 * are rounded as the gem rounds them (2 decimals for shares, 1 for ms) and
 * written as Ruby writes floats (100.0, 12.5).
 */
#ifndef RPERF_PROFILE_TABLE_H
#define RPERF_PROFILE_TABLE_H

#include <stdbool.h>

#include "../../common/out.h"
#include "../profile.h"
#include "encoder.h"

#define RP_TABLE_ROWS_DEFAULT 50

/* The "table" and "table-json" formats (format.h); opts->top rows (the
 * default report's 50 when it is the default). */
int rp_table_write(const rp_profile *p, rp_out *out, const rp_encode_opts *opts);
int rp_table_json_write(const rp_profile *p, rp_out *out, const rp_encode_opts *opts);

/* The diff table of `head` against `base`, `rows` rows. Returns 0, or -1
 * when out of memory. */
int rp_table_diff_write(const rp_profile *base, const rp_profile *head, rp_out *out, bool json, int rows);

#endif
