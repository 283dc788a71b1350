/*
 * profile/load.h — turning PATHs into one merged profile.
 *
 * Owns: expanding each PATH (a profile file, or a session directory whose
 * *.json.gz / *.json files are all read, in name order), reading the files
 * — in parallel, one reading thread per core, each file decompressed and
 * parsed once, at most a few files in memory at a time — and merging them
 * in name order, so the result does not depend on which thread was
 * faster. A bad file named on the command line is an error; a bad file
 * found in a directory is skipped with a warning.
 */
#ifndef RPERF_PROFILE_LOAD_H
#define RPERF_PROFILE_LOAD_H

#include <stdbool.h>

#include "merge.h"
#include "profile.h"
#include "timewin.h"

/* Shown every file that is merged (the timeline): `merged` holds its
 * tables, `file` its facts and samples in merged's ids. Returns 0, or -1 to
 * stop with an error (out of memory). */
typedef int (*rp_load_visit_fn)(const rp_profile *merged, const rp_merge_pending *file, void *ctx);

#define RP_LOAD_TIME_STRETCHES 200
#define RP_LOAD_STRETCH_MIN_NS 10000000

typedef struct rp_load_spec {
    const rp_time_window *window; /* files that overlap it (NULL: all) */
    bool keep_lines;              /* frames one per line, as recorded; else per method */
    /* Each file's samples keep apart: labelled RP_SLOT_LABEL = the index of
     * its stretch of time in merged->load.slots (the viewer's time strip);
     * a file whose raw samples say when they were taken, in stretches of
     * 1/RP_LOAD_TIME_STRETCHES of it (RP_LOAD_STRETCH_MIN_NS at least). */
    bool time_slots;
    rp_load_visit_fn each; /* or NULL */
    void *each_ctx;
} rp_load_spec;

/* Fills `merged` (initialised by this call) from `paths` as `spec` says;
 * merged->load says what was kept. Returns 0 when at least one profile was
 * read and every named file was good; otherwise -1 after printing why
 * (diag.h). The caller frees `merged` in both cases. */
int rp_load_paths(char *const *paths, int count, const rp_load_spec *spec, rp_profile *merged);

/* A profile file as the analyzer reads them from a directory: the agent's
 * gzip-compressed ones, and plain JSON (a merged or hand-made profile). */
bool rp_is_profile_file_name(const char *name);

/* The agent's own name for a file of a session (each part's too):
 * profile-PID-N.json.gz. A directory of other profile files is of runs
 * or snapshots, one each (diff --check, rperf report DIR). */
bool rp_is_session_file_name(const char *name);

/* Reading threads: one per core (at most 8), or RPERF_ANALYZE_THREADS. */
int rp_load_threads(void);

#endif
