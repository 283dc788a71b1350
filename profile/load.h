/*
 * profile/load.h — turning command-line PATHs into one merged profile.
 *
 * Owns: expanding each PATH (a profile file, or a session directory whose
 * *.json.gz / *.json files are all read, in name order), reading each file
 * and merging it, one file at a time, so memory holds one document plus
 * the merged tables. A bad file named on the command line is an error; a
 * bad file found in a directory is skipped with a warning.
 */
#ifndef RPERF_ANALYZER_LOAD_H
#define RPERF_ANALYZER_LOAD_H

#include "profile.h"
#include "timewin.h"

/* Fills `merged` (initialised by this call), with the lines the files
 * have (filter.c may drop them), from the files that overlap `window`
 * (timewin.h; merged->load says what it kept). With `time_slots`, each
 * file's samples keep apart: labelled RP_SLOT_LABEL = the index of the
 * file's stretch of time in merged->load.slots (the viewer's time strip).
 * Returns 0 when at least one profile was read and every named file was
 * good; otherwise -1 after printing why. The caller frees `merged` in
 * both cases. */
int rp_load_paths(char *const *paths, int count, const rp_time_window *window, bool time_slots,
                  rp_profile *merged);

/* rp_load_paths that also shows `each` every file it merges, as read (the
 * timeline). `each` returns 0, or -1 to stop with an error (out of memory). */
typedef int (*rp_load_visit_fn)(const rp_profile *one, void *ctx);
int rp_load_paths_visit(char *const *paths, int count, const rp_time_window *window,
                        rp_profile *merged, rp_load_visit_fn each, void *ctx);

#endif
