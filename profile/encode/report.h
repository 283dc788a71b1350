/*
 * profile/encode/report.h — the text report (README, "Using it by hand"; the gem's
 * Text encoder).
 *
 * Owns: the "Total / Samples / Flat / Cumulative" layout, used by
 * `report`, `convert --text` and `stat --report`.
 */
#ifndef RPERF_PROFILE_REPORT_H
#define RPERF_PROFILE_REPORT_H

#include <stdbool.h>

#include "../../common/out.h"
#include "../profile.h"
#include "encoder.h"

/* Writes the report; `header` adds the Total and Samples lines. Returns 0,
 * or -1 when out of memory. */
int rp_report_write(const rp_profile *p, rp_out *out, int top_n, bool header);

/* report --by KEY: "Total" and the time per value of label KEY (thread_seq
 * too), heaviest first, "(not set)" for samples without it. Returns 0, or
 * -1 when out of memory. */
int rp_report_by_write(const rp_profile *p, rp_out *out, const char *key);

/* The "text" format (format.h): the report, opts->top rows per table. */
int rp_text_write(const rp_profile *p, rp_out *out, const rp_encode_opts *opts);

#endif
