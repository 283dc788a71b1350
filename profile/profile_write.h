/*
 * profile/profile_write.h — writing a profile in the .json.gz format.
 *
 * Owns: the layout of a profile document (README, "Profile file format") as produced from the
 * in-memory model, streamed through common/json_writer.
 */
#ifndef RPERF_PROFILE_PROFILE_WRITE_H
#define RPERF_PROFILE_PROFILE_WRITE_H

#include "../common/out.h"
#include "profile.h"

/* Streams `p` as one JSON document to `out`; returns 0 (it allocates
 * nothing). Write errors surface at rp_out_close(). */
int rp_profile_write_json(const rp_profile *p, rp_out *out);

/* The "summary" object alone, as the document carries it (Rperf::Meta's
 * build_summary). Returns 0. */
int rp_profile_write_summary(const rp_profile *p, rp_out *out);

/* An endpoint's latency histogram as the file has it: [[bucket, count],
 * ...] for the buckets with requests (the viewer's data reuses it). */
struct rp_json;
void rp_profile_write_histogram(struct rp_json *j, const rp_endpoint *e);

/* Writes `p` gzip-compressed (zlib level `level`) to `path`, a private
 * file published whole (common/atomic_file.h). Returns 0 or an errno
 * value. */
int rp_profile_write_file(const rp_profile *p, const char *path, int level);
/* The same, calling between(arg) after each 64 KB of JSON written. */
int rp_profile_write_file_paced(const rp_profile *p, const char *path, int level, void (*between)(void *),
                                void *arg);

#endif
