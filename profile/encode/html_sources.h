/*
 * profile/encode/html_sources.h — the program's source files in the
 * viewer page, for its Source tab.
 *
 * Owns: which files a line-level profile (RPERF_LINES) weighs — the paths
 * of its frames with a line that name a file — and their text, read when
 * the page is written, the heaviest files first (the weight of the samples
 * with a frame in them): a file at most RP_HTML_SOURCE_MAX bytes, all of
 * them at most RP_HTML_SOURCES_MAX; a file that cannot be read (gone,
 * moved, unreadable, too large, past the budget) is written with the reason, so that the page says
 * it rather than hiding it. A relative path is read from the directory the
 * program started in (the profile's cwd) when the file is there, else from
 * the current directory.
 */
#ifndef RPERF_PROFILE_HTML_SOURCES_H
#define RPERF_PROFILE_HTML_SOURCES_H

#include "../../common/json_writer.h"
#include "../profile.h"

#define RP_HTML_SOURCE_MAX (2u << 20)
#define RP_HTML_SOURCE_MAX_TEXT "2 MB"
#define RP_HTML_SOURCES_MAX (8u << 20)
#define RP_HTML_SOURCES_MAX_TEXT "8 MB"

/* Writes "sources": {path: {"lines": [...]} or {"error": why}, ...}.
 * Returns 0, or -1 when out of memory. */
int rp_html_write_sources(rp_json *j, const rp_profile *p);

#endif
