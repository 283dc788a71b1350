/*
 * profile/encode/html.h — the HTML viewer (rperf-analyze convert --html).
 *
 * Owns: the "html" format: one self-contained page (profile/viewer/: the
 * page, its style and scripts, embedded at build time) with the profile's
 * summary written as HTML, and the merged call tree (calltree.h) as data
 * from which the page's script computes everything else — flame graph,
 * Top and Tags tables, Sandwich, Source (with the program's sources,
 * html_sources.h) and Threads — under its filters; and its differential
 * form, which also carries a base profile's totals per call path.
 * The page makes no network request of any kind.
 */
#ifndef RPERF_PROFILE_HTML_H
#define RPERF_PROFILE_HTML_H

#include "../../common/out.h"
#include "../profile.h"
#include "encoder.h"

/* Subtrees lighter than total / RP_HTML_FOLD_DIVISOR are folded into
 * "(other)" nodes: far below a pixel at any zoom a person uses. */
#define RP_HTML_FOLD_DIVISOR 100000

/* And fewer when the tree would still have more nodes than this: the
 * page stays a few megabytes and draws in well under a second however
 * many distinct stacks a session has. */
#define RP_HTML_MAX_NODES 200000

/* Slow requests listed on the Requests tab, slowest first. */
#define RP_HTML_SLOW_ROWS 200

int rp_html_write(const rp_profile *p, rp_out *out, const rp_encode_opts *opts);

/* The differential page (rperf-analyze diff --html): the target's flame
 * graph with each call path coloured by the change of its share from
 * `base` to `target`. Returns 0, or -1 when out of memory. */
int rp_html_write_diff(const rp_profile *base, const rp_profile *target, rp_out *out);

#endif
