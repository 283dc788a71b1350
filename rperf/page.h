/*
 * rperf/page.h — a page of rperf-analyze's, shown in a browser.
 *
 * Owns: writing the page into a new private directory (it must outlive
 * rperf: the browser reads it later) and opening it with xdg-open where
 * there is a display, or printing its path where there is none (serve.h
 * serves it over HTTP instead).
 */
#ifndef RPERF_RPERF_PAGE_H
#define RPERF_RPERF_PAGE_H

#include <limits.h>

#define RPERF_PAGE_PATH_MAX (PATH_MAX + 64)

/* Runs `rperf-analyze ARGS... -o PAGE PATHS...` (both NULL-terminated),
 * PAGE being NAME.html in a new private directory: its path into page[],
 * the directory's into dir[] (the caller removes it when done). Returns 0,
 * or 1 (said; nothing left behind). */
int rperf_write_page(const char *name, const char *const *args, const char *const *paths, char dir[PATH_MAX],
                     char page[RPERF_PAGE_PATH_MAX]);

/* Opens `target` (a file or a URL) with xdg-open where there is a display
 * (DISPLAY or WAYLAND_DISPLAY, and xdg-open on PATH). Returns 0; 1 when
 * xdg-open failed (said); -1 when there is no display (nothing said). */
int rperf_browse(const char *target);

/* The same page, shown; its path printed where there is no display.
 * Returns 0 or 1. */
int rperf_show_page(const char *name, const char *const *args, const char *const *paths);

#endif
