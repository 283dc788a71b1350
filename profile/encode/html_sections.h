/*
 * profile/encode/html_sections.h — the parts of the viewer's page written as HTML.
 *
 * Owns: what the page says of the whole profile, which no filter changes
 * and so the script does not draw: the summary (command, mode, duration,
 * processes, threads, samples, time by VM state with a bar). Everything
 * the filters change (the Top and Tags tables, the views) the script
 * computes from the page's data, and only it: one source for each number.
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
} rp_html_page;

/* Returns 0, or -1 when out of memory. */
int rp_html_summary(rp_out *out, const rp_html_page *pg);

#endif
