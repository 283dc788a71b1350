/*
 * agent/profiles/writer.h — turning the agent's tables into a profile file.
 *
 * Owns: resolving frame VALUEs to (path, label) strings, composing label
 * sets (VM state, %pid in fork children), gathering metadata, and writing
 * the file atomically into the session directory.
 */
#ifndef RPERF_AGENT_WRITER_H
#define RPERF_AGENT_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../base/config.h"
#include "../base/recording.h"
#include "../sampling/sampler.h"
#include "session.h"
#include "window.h"

/* Why a part ended: with the process (its last part, or a profile not in
 * parts), an interval (RPERF_INTERVAL), or the stack table filling
 * (RPERF_MAX_STACKS). */
typedef enum rp_part_end { RP_PART_END_LAST = 0, RP_PART_END_INTERVAL, RP_PART_END_FULL_STACKS } rp_part_end;

typedef struct rp_write_request {
    rp_rec_id recording;     /* whose tables and counters */
    rp_rec_config rec;       /* its mode, frequency, aggregation */
    const rp_session *session;
    const rp_window *window; /* the stretch of the profile to write */
    rp_sampler_stats stats;  /* counters now */
    uint32_t detected_threads;
    bool label_pid; /* fork child: every sample carries %pid=<pid> */
    int64_t part;   /* 0: the whole process; N: its Nth part */
    rp_part_end part_end;
    bool take_requests; /* the requests written are the recording's no more (a part) */
    /* called between the file's chunks (64 KB) as it is written, or NULL:
     * the worker folds meanwhile (worker.h, rp_worker_fold_now) */
    void (*between_chunks)(void);
} rp_write_request;

#include "../../profile/profile.h"

/* GVL held, worker stopped or tables held (rp_aggregator_hold): builds the
 * profile of the request's window from the aggregator's tables, with each
 * sample's labels (the thread's, its VM state, %pid). Returns 0, or -1
 * (one line already printed; `p` is then empty but must still be freed). */
int rp_writer_build(const rp_write_request *req, rp_profile *p);

/* Writes `p` into the session directory. Returns 0, or -1 with what went
 * wrong (the file or directory and why) in why[]; printing it is the
 * caller's choice. *path_out receives the file name. */
int rp_writer_save(const rp_write_request *req, const rp_profile *p, char *path_out,
                   size_t path_size, char *why, size_t why_size);

#endif
