/*
 * rperf/page.h — a page of rperf-analyze's, shown in a browser.
 *
 * Owns: writing the page into a new private directory (it must outlive
 * rperf: the browser reads it later) and opening it with xdg-open where
 * there is a display, or printing its path where there is none.
 */
#ifndef RPERF_RPERF_PAGE_H
#define RPERF_RPERF_PAGE_H

/* Runs `rperf-analyze ARGS... -o PAGE PATHS...` (both NULL-terminated),
 * PAGE being NAME.html, and shows it. Returns 0 or 1. */
int rperf_show_page(const char *name, const char *const *args, const char *const *paths);

#endif
