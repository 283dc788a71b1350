/*
 * profile/profile.h — the in-memory model of one rperf profile.
 *
 * Owns: everything a profile file says (README, "Profile file format"), in compact interned form:
 * the strings, the frames as (path, label) string pairs, the stacks, the
 * samples, the label sets and the process metadata. The agent fills one
 * from its tables and writes it; readers (the analyzer, the Ruby API's
 * Rperf.load) read each file into one and merge them into another. Key
 * names live in schema.h.
 */
#ifndef RPERF_PROFILE_PROFILE_H
#define RPERF_PROFILE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/idxset.h"
#include "../common/sample_table.h"
#include "../common/stack_table.h"
#include "../common/strtab.h"
#include "measure.h"
#include "requests.h"

typedef enum rp_mode { RP_MODE_CPU = 0, RP_MODE_WALL = 1 } rp_mode;

typedef struct rp_frame {
    uint32_t path;       /* string id; "<C method>" for C functions */
    uint32_t label;      /* string id, e.g. "Object#fibonacci" */
    uint32_t line;       /* line being run, or 0 (not recorded, C methods) */
    uint32_t start_line; /* first line of the method, or 0 (unknown) */
} rp_frame;

typedef struct rp_label {
    uint32_t key;   /* string id, e.g. "%GVL" */
    uint32_t value; /* string id, e.g. "blocked" */
} rp_label;

typedef struct rp_label_set {
    size_t first; /* into rp_profile.labels */
    uint32_t count;
} rp_label_set;

typedef struct rp_gc_stats {
    int64_t count, minor_count, major_count, time_ns;
    int64_t allocated_objects, freed_objects;
} rp_gc_stats;

typedef struct rp_os_stats {
    int64_t maxrss_kb, page_faults_minor, page_faults_major;
    int64_t ctx_voluntary, ctx_involuntary, io_read_bytes, io_write_bytes;
} rp_os_stats;

/* Integer members of the document: key and place in the struct. Reader
 * and writer both walk these tables, so they cannot disagree. */
typedef struct rp_int_field {
    const char *key;
    size_t offset;    /* of the int64_t member */
    bool merged_only; /* written only for a merged profile (several processes) */
} rp_int_field;

/* A row: the member `member` of struct `type` under `key`. */
#define RP_INT_FIELD(key, type, member) {(key), offsetof(type, member), false}
#define RP_MERGED_INT_FIELD(key, type, member) {(key), offsetof(type, member), true}

typedef struct rp_int_fields {
    const rp_int_field *fields;
    size_t count;
} rp_int_fields;

extern const rp_int_fields rp_meta_fields; /* top level, in rp_meta */
/* The gem's "gc_stats" names of rp_gc_stats (its time_ns member holding
 * milliseconds there: convert), written beside our "gc" so that the
 * gem's readers (its summary, Rperf::Table) find the GC figures. */
extern const rp_int_fields rp_gem_gc_fields;
/* The gem's peak memory in MB (rounded), beside our os.maxrss_kb. */
#define RP_KEY_GEM_MAXRSS_MB "maxrss_mb"
extern const rp_int_fields rp_gc_fields;   /* "gc", in rp_gc_stats */
extern const rp_int_fields rp_os_fields;   /* "os", in rp_os_stats */
extern const rp_int_fields rp_endpoint_fields;  /* an endpoint of "requests", in rp_endpoint */
extern const rp_int_fields rp_slow_span_fields; /* a slow span of "requests", in rp_slow_span */

static inline int64_t *rp_int_field_at(void *base, const rp_int_field *field)
{
    return (int64_t *)((char *)base + field->offset);
}

/* Process-level facts and counters. Integers absent from a file read as 0. */
typedef struct rp_meta {
    rp_mode mode;
    int64_t pid, ppid, frequency;
    int64_t trigger_count, sampling_count, sampling_time_ns, dropped_samples;
    int64_t truncated_samples; /* stacks cut at the capture depth */
    int64_t detected_thread_count;
    int64_t start_time_ns, duration_ns, user_ns, sys_ns;
    int64_t process_count; /* 1 for one process; the number merged otherwise */
    int64_t total_duration_ns; /* sum over processes (for overhead %) */
    int64_t part;              /* 0: a whole process; N >= 1: its Nth part */
    /* parts ended as an interval did, as the stack table filled (summed) */
    int64_t parts_at_interval, parts_at_full_stacks;
    int64_t alloc_rate;        /* one allocation in N sampled (RPERF_ALLOC); 0: none */
    int64_t alloc_unfollowed;  /* sampled objects not followed: the cap was reached */
    int64_t alloc_window_ms, alloc_window_every_ms; /* RPERF_ALLOC=window; 0: sampled throughout */
    int64_t worker_cpu_ns;     /* the agent's worker thread's CPU time (part of user_ns + sys_ns) */
    uint32_t rperf_version;    /* string id, or RP_IDX_NONE */
    uint32_t ruby_version;     /* string id, or RP_IDX_NONE */
    uint32_t cwd;              /* the working directory at start: string id, or RP_IDX_NONE */
    /* The gem 0.11's meta (schema.h): string ids, or RP_IDX_NONE. git and
     * meta_labels hold their object's JSON text (common/json_flat.h);
     * created_at, ISO 8601 UTC, is stamped when first written. */
    uint32_t hostname, created_at, git, meta_labels;
    /* The summary a program handed Rperf.save with its data (JSON text,
     * written as given, as the gem does); RP_IDX_NONE: computed from the
     * samples. Never read from a file nor kept by a merge: rperf-analyze's
     * outputs say what their samples say. */
    uint32_t given_summary;
    uint32_t *command;         /* string ids of argv words */
    size_t command_len;
    bool has_gc, has_os, has_yjit;
    rp_gc_stats gc;
    rp_os_stats os;
    double yjit_ratio;
    /* Not in the file: when merging, the end of the file whose gc and os
     * counters (and YJIT ratio) these are — the latest part of the root
     * process (merge.c). */
    int64_t counters_end_ns;
} rp_meta;

/* A file's stretch of time, when loading keeps them apart (the viewer's
 * time strip), or a stretch of a file whose raw samples say when they
 * were taken: its samples carry the label RP_SLOT_LABEL = its index. */
typedef struct rp_time_slot {
    int64_t start_ns, duration_ns;
} rp_time_slot;

#define RP_SLOT_LABEL "%slot"

/* The room for a reader's one-line error (profile_read.h, the pprof
 * reader's too). */
#define RP_READ_ERROR_MAX 256

/* What loading selected (load.c; not in the file format):
 * with --since/--until, the window and how many files it kept; and the
 * files' time slots when asked for (owned, freed with the profile). */
typedef struct rp_load_facts {
    bool windowed;
    int64_t window_from_ns, window_to_ns; /* INT64_MIN / INT64_MAX: open */
    size_t files_kept, files_outside;
    rp_time_slot *slots;
    size_t slot_count, slots_cap;
    bool has_parts; /* some file is a part (RPERF_INTERVAL) */
    bool has_sample_times; /* some file's raw samples said when they were taken: slots within it */
} rp_load_facts;

typedef struct rp_profile {
    rp_meta meta;
    rp_load_facts load;
    rp_strtab strings;
    rp_frame *frames;
    size_t frame_count, frames_cap;
    rp_idxset frame_index;
    rp_stack_table stacks;
    rp_sample_table samples; /* time; or the measure selected (rp_profile_select) */
    /* Allocation sampling (RPERF_ALLOC), by measure - 1: allocated objects,
     * retained objects, retained bytes; each sample's weight is the objects
     * (bytes) it stands for. The retained bytes table has the entries of
     * the retained objects table, in the same order. */
    rp_sample_table memory[RP_MEMORY_MEASURES];
    rp_measure measure; /* what `samples` holds */
    rp_requests requests; /* spans of requests and jobs (requests.h) */
    rp_label *labels;
    size_t label_count, labels_cap;
    rp_label_set *label_sets;
    size_t label_set_count, label_sets_cap;
    rp_idxset label_set_index;
} rp_profile;

/* Prepares an empty profile whose label set 0 is {}. Returns 0 or -1
 * (out of memory). `aggregate` chooses how samples are kept. */
int rp_profile_init(rp_profile *p, bool aggregate);
void rp_profile_free(rp_profile *p);

/* The table of measure `m`, wherever selection put it. */
rp_sample_table *rp_profile_table(rp_profile *p, rp_measure m);
const rp_sample_table *rp_profile_table_const(const rp_profile *p, rp_measure m);
/* Makes `samples` hold measure `m` (the others stay reachable through
 * rp_profile_table), so that every encoder shows it. */
void rp_profile_select(rp_profile *p, rp_measure m);
/* Whether the profile was recorded with allocation sampling. */
bool rp_profile_has_memory(const rp_profile *p);
/* Whether some frame has its line (RPERF_LINES, and read keeping lines). */
bool rp_profile_has_lines(const rp_profile *p);

/* Interning helpers; each returns an id or RP_IDX_NONE when out of memory. */
uint32_t rp_profile_string(rp_profile *p, const char *s, size_t len);
uint32_t rp_profile_cstring(rp_profile *p, const char *s);
/* A method-level frame (no line). */
uint32_t rp_profile_frame(rp_profile *p, uint32_t path, uint32_t label);
/* A frame at `line` (0: none) of a method starting at `start_line` (0:
 * unknown). Frames are one per (path, label, line); the first non-zero
 * start line given for a frame is kept. */
uint32_t rp_profile_line_frame(rp_profile *p, uint32_t path, uint32_t label, uint32_t line,
                               uint32_t start_line);
uint32_t rp_profile_stack(rp_profile *p, const uint32_t *frame_ids, uint32_t depth);
/* Label set from `count` pairs: a map, so the order of pairs does not
 * matter and a key given twice keeps its last value. */
uint32_t rp_profile_label_set(rp_profile *p, const rp_label *pairs, uint32_t count);

/* The value (string id) of label `key` (string id) in label set `set`, or
 * RP_IDX_NONE when the set has no such key. */
uint32_t rp_profile_label_value(const rp_profile *p, uint32_t set, uint32_t key);
/* A label key as selections and tables use it: thread_seq (the sample's
 * thread number, RP_LABEL_THREAD_SEQ) or a key of the label sets. */
typedef struct rp_label_key {
    bool thread_seq;
    uint32_t id; /* string id of the key; RP_IDX_NONE when no set has it */
} rp_label_key;

rp_label_key rp_label_key_of(const rp_profile *p, const char *name);

/* The value label `key` has in a sample of thread `seq` with label set
 * `set`, as text (a thread number is written into `buf`), or NULL when
 * the sample has none. */
#define RP_LABEL_VALUE_BUF 16
const char *rp_sample_label(const rp_profile *p, rp_label_key key, uint32_t set, uint32_t seq,
                            char buf[RP_LABEL_VALUE_BUF]);

/* The %pid value (string id) of label set `set`, or RP_IDX_NONE for the
 * session's root process, whose samples carry none. */
uint32_t rp_profile_process_of(const rp_profile *p, uint32_t set);

/* "label (path)", "label (path:line)" when the frame has a line, "label"
 * when the path is empty; cut to fit `size`. Returns `buf`. */
#define RP_FRAME_NAME_MAX 4096
const char *rp_frame_name(const rp_profile *p, const rp_frame *f, char *buf, size_t size);

/* Convenience accessors. */
const char *rp_profile_str(const rp_profile *p, uint32_t id);
const char *rp_mode_name(rp_mode mode);

#endif
