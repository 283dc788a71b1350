/*
 * profile/encode/html_sections.h — the parts of the viewer's page written as HTML.
 *
 * Owns: what the page says before its script runs, so that text tools and
 * screen readers read it too: the summary (command, mode, duration,
 * processes, threads, samples, time by VM state with a bar), the top
 * methods table and the tags tables. The page's script redraws the same
 * markup (profile/viewer/viewer.js) when filters change; keep the two in
 * step.
 */
#ifndef RPERF_PROFILE_HTML_SECTIONS_H
#define RPERF_PROFILE_HTML_SECTIONS_H

#include <stdint.h>

#include "../flatcum.h"
#include "../../common/out.h"
#include "../profile.h"

/* Writes `s` as HTML text (also safe inside a quoted attribute). */
void rp_html_text(rp_out *out, const char *s);

/* The profiled command line as HTML text ("(unknown command)" when the
 * profile does not say). */
void rp_html_command(rp_out *out, const rp_profile *p);

/* What the sections are written from. */
typedef struct rp_html_page {
    const rp_profile *p;
    rp_flatcum fc;       /* self (flat) and total (cumulative) per frame */
    int64_t *self_ns;    /* per frame id */
    int top_rows;        /* rows of the top table */
} rp_html_page;

/* Each returns 0, or -1 when out of memory. */
int rp_html_summary(rp_out *out, const rp_html_page *pg);
int rp_html_top_caption(rp_out *out, const rp_html_page *pg);
int rp_html_top_rows(rp_out *out, const rp_html_page *pg);
int rp_html_tags(rp_out *out, const rp_html_page *pg);

#endif
