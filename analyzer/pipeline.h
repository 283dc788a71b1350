/*
 * analyzer/pipeline.h — what every command that reads profiles does.
 *
 * Owns: the steps from command-line paths to output: load and merge
 * (load.c), filter (filter.c), encode and write (format.c, output.c), and
 * the exit status of the whole (commands.h). Part of the command layer:
 * the steps themselves know nothing of exit statuses.
 */
#ifndef RPERF_ANALYZER_PIPELINE_H
#define RPERF_ANALYZER_PIPELINE_H

#include <stdbool.h>

#include "../profile/profile.h"
#include "../profile/encode/format.h"
#include "options.h"

/* Loads and merges `paths` into `p` and filters it as `o` says, keeping
 * lines when `keep_lines` and each file's time slot when `time_slots`
 * (load.h). Returns 0, or -1 after an error line; the caller frees `p`
 * either way. */
int rp_pipeline_load(char *const *paths, int count, const rp_options *o, bool keep_lines,
                     bool time_slots, rp_profile *p);

/* The whole of `convert` and `report`: loads `paths`, writes them as
 * `format` to `path` (NULL: stdout). Returns the exit status. */
int rp_pipeline_convert(char *const *paths, int count, const rp_options *o,
                        const rp_format *format, const char *path);

#endif
