/*
 * agent/sampling/sample_buf.h — the double buffer between sampling and aggregation.
 *
 * Owns: two fixed-size buffers of captured samples (frame names —
 * frame_names.h, no Ruby object — with weight, thread, VM state). The postponed job appends to the active one; when it
 * is half full it is handed to the worker thread, which folds it into the
 * aggregator and hands it back empty. Nothing on the sampling path
 * allocates, locks or makes a syscall besides sem_post at a hand-over, and
 * it takes no page fault either: the worker maps in the pages the sampler
 * will write next before it gets there (rp_sample_buf_prefault).
 */
#ifndef RPERF_AGENT_SAMPLE_BUF_H
#define RPERF_AGENT_SAMPLE_BUF_H

#include <stdbool.h>
#include <stdint.h>

#include "../../profile/schema.h"
#include "../../profile/vm_state.h"
#include "../base/ruby_api.h"

#define RP_BUF_SAMPLES 4096
#define RP_BUF_FRAMES (1u << 17)

typedef struct rp_buffered_sample {
    uint32_t frame_offset;
    uint16_t depth;
    uint8_t vm_state;
    uint8_t recording; /* whose sample it is (recording.h) */
    uint32_t thread_seq;
    uint32_t label_set; /* the thread's labels then (labels.h) */
    int64_t weight;
    int64_t time_ns; /* CLOCK_MONOTONIC at the capture: raw recordings keep it */
} rp_buffered_sample;

typedef struct rp_sample_buf {
    uint32_t count;
    uint32_t frame_count;
    bool has_lines; /* lines[] is filled alongside frames[] */
    rp_buffered_sample samples[RP_BUF_SAMPLES];
    uint32_t frames[RP_BUF_FRAMES]; /* frame name ids (frame_names.h) */
    int lines[RP_BUF_FRAMES]; /* never touched without has_lines */
} rp_sample_buf;

/* Main thread at start: allocates both buffers; with `lines`, captures
 * record the line each frame is at. Returns 0 or -1. */
int rp_sample_buf_init(bool lines);
void rp_sample_buf_free(void);

typedef enum rp_capture_result {
    RP_CAPTURED,
    RP_CAPTURED_TRUNCATED, /* deeper than RP_STACK_MAX: the leaf side was kept */
    RP_CAPTURE_NO_FRAMES,  /* no Ruby frame (VM boot, a dying thread) */
    RP_CAPTURE_FULL,       /* both buffers full: the sample is dropped */
} rp_capture_result;

/* Time to attribute to the current stack in one VM state, for one
 * recording. */
typedef struct rp_charge {
    rp_vm_state state;
    int64_t weight;    /* ns; charges of 0 are left out */
    uint8_t recording; /* recording.h's id */
} rp_charge;

/* Charges of one capture at most: three per recording (running, GVL
 * blocked, GVL wait, in wall mode), rounded up. */
#define RP_CHARGES_MAX 8

/* GVL held (postponed job, GVL and GC hooks): captures the current
 * thread's stack once and records each of the `n` charges on it, with the
 * thread's number and label set, for the recording each names. */
rp_capture_result rp_sample_buf_capture(uint32_t thread_seq, uint32_t label_set,
                                        const rp_charge *charges, int n);

/* GVL held, right after rp_sample_buf_capture returned RP_CAPTURED or
 * RP_CAPTURED_TRUNCATED: the frames it captured (leaf first) and their
 * lines (NULL without lines), valid until the next capture. Returns the
 * depth. */
uint32_t rp_sample_buf_last_capture(const uint32_t **frames, const int **lines);

/* GVL held: records a charge on a stack captured earlier (`frames` and
 * `lines`, or NULL, leaf first; spans.c keeps a request's samples until it
 * ends) at `time_ns` (CLOCK_MONOTONIC), as rp_sample_buf_capture would
 * have then. */
rp_capture_result rp_sample_buf_append(uint32_t thread_seq, uint32_t label_set, const uint32_t *frames,
                                       const int *lines, uint32_t depth, const rp_charge *charge, int64_t time_ns);

/* Worker thread: the buffer handed over for folding, or NULL. Also read
 * by rp_aggregator_hold (GVL held, aggregator lock held), which may fold
 * it: the worker then folds an empty buffer and gives it back as usual. */
rp_sample_buf *rp_sample_buf_take_full(void);
/* Worker thread: gives the buffer it took back, folded (and so emptied). */
void rp_sample_buf_return(void);

/* After the worker has stopped (GVL held): the buffer still being filled. */
rp_sample_buf *rp_sample_buf_active(void);

/* Fork child: forgets everything buffered in the parent. */
void rp_sample_buf_reset(void);

/* Worker thread, no GVL, at every wake-up: makes sure the next stretch of
 * both buffers beyond what the sampler has written is mapped in, so that
 * first-touch page faults (5-20 us each on a VM, longer than a whole
 * sample) are paid here rather than on the Ruby thread. Also breaks
 * copy-on-write sharing ahead of the writer in a fork child. Needs Linux
 * 5.14 (MADV_POPULATE_WRITE); on older kernels it quietly does nothing. */
void rp_sample_buf_prefault(void);

/* Before a new worker starts (GVL held): nothing is known to be mapped in
 * yet (a fork child shares its pages with the parent until written). */
void rp_sample_buf_prefault_reset(void);

/* Set by the worker module: called (async-signal-safe) at a hand-over. */
void rp_sample_buf_set_wakeup(void (*wake)(void));

#endif
