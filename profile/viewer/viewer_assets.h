/*
 * profile/viewer/viewer_assets.h — the viewer's files, as bytes.
 *
 * Owns: the declarations of viewer.html, viewer.css, viewer.js and the
 * view_*.js files as compiled into rperf-analyze; the definitions are
 * generated at build time from those files by embed.c (see
 * profile/meson.build), so the page, its style and its scripts stay
 * ordinary files to edit.
 */
#ifndef RPERF_PROFILE_VIEWER_ASSETS_H
#define RPERF_PROFILE_VIEWER_ASSETS_H

#include <stddef.h>

extern const char rp_viewer_html[];
extern const size_t rp_viewer_html_len;
extern const char rp_viewer_css[];
extern const size_t rp_viewer_css_len;
extern const char rp_viewer_js[];
extern const size_t rp_viewer_js_len;
/* The views viewer.js sets up (the page's script is them, then it). */
extern const char rp_viewer_sandwich_js[];
extern const size_t rp_viewer_sandwich_js_len;
extern const char rp_viewer_source_js[];
extern const size_t rp_viewer_source_js_len;
extern const char rp_viewer_threads_js[];
extern const size_t rp_viewer_threads_js_len;
extern const char rp_viewer_strip_js[];
extern const size_t rp_viewer_strip_js_len;
extern const char rp_viewer_requests_js[];
extern const size_t rp_viewer_requests_js_len;

#endif
