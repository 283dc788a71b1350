/*
 * rperf/history.h — `rperf report DIR` of a directory of snapshots (rperf
 * record --snapshot-dir, or any profile files that are not one session's):
 * the gem 0.11's history across commits.
 *
 * Owns: telling such a directory from a session directory (one that holds
 * the agent's profile-PID-N.json.gz files), and
 * serving its history page over HTTP (serve.h): "/" the page
 * (profile/viewer/history.html, .css, .js); "/snapshots" every file's
 * name, modification time, meta and summary as JSON, read from the files'
 * heads alone; the viewer page of one ("/snapshots/ID") or the
 * differential page of two ("/diff/BASE/ID"), made by rperf-analyze's own
 * code when first asked for and kept in a private directory until the
 * server stops;
 * "/share?method=NAME" the method's self and total share in every
 * snapshot (null where it has none), each body read once, when first
 * asked. IDs are the files' places in name order.
 */
#ifndef RPERF_RPERF_HISTORY_H
#define RPERF_RPERF_HISTORY_H

#include <stdbool.h>

/* A directory without a session's files (profile-PID-N.json.gz): of
 * snapshots, or empty. */
bool rperf_is_snapshot_dir(const char *dir);

/* Serves the history of `dir` on `host` and `port` (serve.h) until
 * Ctrl-C; with `browse` opens it where there is a display. Returns 0, or 1
 * (said: no profiles in it, a port in use). */
int rperf_history_serve(const char *dir, const char *host, int port, bool browse);

#endif
