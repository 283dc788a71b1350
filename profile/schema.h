/*
 * profile/schema.h — the names used in rperf profile files (README, "Profile
 * file format").
 *
 * Owns: every JSON key and fixed string of the .json.gz format, shared by
 * the agent's writer and the analyzer's reader so they cannot drift apart.
 * The format is the rperf gem 0.9's; keys marked "ext" are this project's
 * extensions, which the gem ignores.
 */
#ifndef RPERF_PROFILE_SCHEMA_H
#define RPERF_PROFILE_SCHEMA_H

/* RP_VERSION, the project's version, is meson.build's: it reaches every
 * file through the compiler's command line (and version.rb, the rperf
 * command through rperf-analyze --version). */
#ifndef RP_VERSION
#error "RP_VERSION is defined by meson.build"
#endif

#define RP_KEY_RPERF_VERSION "rperf_version"
#define RP_KEY_PID "pid"
#define RP_KEY_PPID "ppid"
#define RP_KEY_MODE "mode"
#define RP_KEY_FREQUENCY "frequency"
#define RP_KEY_TRIGGER_COUNT "trigger_count"
#define RP_KEY_SAMPLING_COUNT "sampling_count"
#define RP_KEY_SAMPLING_TIME_NS "sampling_time_ns"
#define RP_KEY_DETECTED_THREADS "detected_thread_count"
#define RP_KEY_UNIQUE_FRAMES "unique_frames"
#define RP_KEY_UNIQUE_STACKS "unique_stacks"
#define RP_KEY_START_TIME_NS "start_time_ns"
#define RP_KEY_DURATION_NS "duration_ns"
#define RP_KEY_USER_NS "user_ns"
#define RP_KEY_SYS_NS "sys_ns"
#define RP_KEY_DROPPED_SAMPLES "dropped_samples"
#define RP_KEY_TRUNCATED_SAMPLES "truncated_samples" /* ext */
#define RP_KEY_PROCESS_COUNT "process_count"         /* merged files */
#define RP_KEY_TOTAL_DURATION_NS "total_duration_ns" /* merged files */
#define RP_KEY_PART "part" /* ext: 0 a whole process, N the Nth part (RPERF_INTERVAL) */
/* ext: parts that ended as an interval did (RPERF_INTERVAL) and as the
 * stack table filled (RPERF_MAX_STACKS): 0 or 1 in a file, summed when
 * merged. A process's last part ended with it and counts in neither. */
#define RP_KEY_PARTS_AT_INTERVAL "parts_ended_by_interval"
#define RP_KEY_PARTS_AT_FULL_STACKS "parts_ended_by_full_stacks"
/* ext: the CPU time of the agent's worker thread (its timer ticks, folding
 * samples, writing parts), which user_ns and sys_ns include. */
#define RP_KEY_WORKER_CPU_NS "worker_cpu_ns"
#define RP_KEY_AGGREGATED_SAMPLES "aggregated_samples"
/* ext, allocation sampling (RPERF_ALLOC): the rate, the sampled
 * allocations [frames, objects, thread_seq, label_set_id] and the sampled
 * objects still alive [frames, objects, thread_seq, label_set_id, bytes],
 * whose label sets hold the object's class under RP_LABEL_CLASS. */
#define RP_KEY_ALLOC_RATE "alloc_rate"
#define RP_KEY_ALLOC_UNFOLLOWED "alloc_unfollowed"
/* ext: RPERF_ALLOC=window — the sampled allocations were taken in windows
 * of this many ms every ~RP_KEY_ALLOC_WINDOW_EVERY_MS, their weights
 * scaled to the allocations of the whole run. */
#define RP_KEY_ALLOC_WINDOW_MS "alloc_window_ms"
#define RP_KEY_ALLOC_WINDOW_EVERY_MS "alloc_window_every_ms"
#define RP_KEY_ALLOC_SAMPLES "alloc_samples"
#define RP_KEY_RETAINED_SAMPLES "retained_samples"
/* ext, requests and jobs (profile/requests.h): {"endpoints": [...],
 * "slow": [...]}; README, "Profile file format". */
#define RP_KEY_REQUESTS "requests"
#define RP_KEY_REQ_ENDPOINTS "endpoints"
#define RP_KEY_REQ_SLOW "slow"
#define RP_KEY_REQ_NAME "name"
#define RP_KEY_REQ_ENDPOINT "endpoint"
#define RP_KEY_REQ_COUNT "count"
#define RP_KEY_REQ_MAX_NS "max_ns"
#define RP_KEY_REQ_WALL_NS "wall_ns"
#define RP_KEY_REQ_CPU_NS "cpu_ns"
#define RP_KEY_REQ_WAIT_NS "gvl_wait_ns"
#define RP_KEY_REQ_BLOCKED_NS "blocked_ns"
#define RP_KEY_REQ_QUEUE_NS "queue_ns"
#define RP_KEY_REQ_GC_NS "gc_ns"
#define RP_KEY_REQ_STATUS "status"
#define RP_KEY_REQ_START_NS "start_ns"
#define RP_KEY_REQ_HISTOGRAM "histogram" /* [[bucket, count], ...], requests.h's buckets */
#define RP_KEY_THREAD_SEQ "thread_seq"
#define RP_KEY_REQ_SPAN "span" /* the slow request's samples carry %span=<it> */
#define RP_KEY_REQ_BLOCKED_AT "blocked_at"     /* where its longest block was: "Kernel#sleep at app.rb:12" */
#define RP_KEY_REQ_LONGEST_BLOCK_NS "longest_block_ns" /* and how long */
#define RP_KEY_REQ_FOLDED_NAMES "folded_names" /* endpoint names past the agent's bound (requests.h) */
#define RP_KEY_RAW_SAMPLES "raw_samples" /* [frames, weight, thread_seq, label_set_id, time_ns] */
#define RP_KEY_LABEL_SETS "label_sets"
#define RP_KEY_COMMAND "command"           /* ext: argv array */
#define RP_KEY_RUBY_VERSION "ruby_version" /* ext */
#define RP_KEY_CWD "cwd"                   /* ext: the working directory at start */
#define RP_KEY_YJIT_RATIO "yjit_ratio"     /* ext */

/* The gem 0.11's "meta" and "summary", the document's first two members
 * so that a lister reads only the head of a file (Rperf.read_meta):
 * meta {format_version, created_at, ruby_version, rperf_version, mode,
 * hostname, git {sha, branch, subject, committed_at, dirty}, labels {}};
 * summary {total_ms, cpu_ms, gc_count_minor, gc_count_major, gc_ms,
 * allocated_objects, freed_objects, maxrss_mb, samples, top_methods [{name,
 * self_pct, total_pct}]}, written from the profile (readers recompute it). */
#define RP_KEY_META "meta"
#define RP_KEY_SUMMARY "summary"
#define RP_META_FORMAT_VERSION 1
#define RP_KEY_META_HOSTNAME "hostname"
#define RP_KEY_META_CREATED_AT "created_at"
#define RP_KEY_META_GIT "git"
#define RP_KEY_META_LABELS "labels"
#define RP_SUMMARY_TOP_METHODS 50

#define RP_KEY_GC "gc" /* ext object */
#define RP_KEY_GEM_GC_STATS "gc_stats" /* the gem's GC object (read only) */
#define RP_KEY_GC_COUNT "count"
#define RP_KEY_GC_MINOR "minor_gc_count"
#define RP_KEY_GC_MAJOR "major_gc_count"
#define RP_KEY_GC_TIME_NS "time_ns"
#define RP_KEY_GC_ALLOCATED "total_allocated_objects"
#define RP_KEY_GC_FREED "total_freed_objects"

#define RP_KEY_OS "os" /* ext object */
#define RP_KEY_OS_MAXRSS_KB "maxrss_kb"
#define RP_KEY_OS_MINFLT "page_faults_minor"
#define RP_KEY_OS_MAJFLT "page_faults_major"
#define RP_KEY_OS_NVCSW "ctx_voluntary"
#define RP_KEY_OS_NIVCSW "ctx_involuntary"
#define RP_KEY_OS_IO_READ "io_read_bytes"
#define RP_KEY_OS_IO_WRITE "io_write_bytes"

/* Frame path of C functions (rb_profile_frame_path gives nil for them). */
#define RP_C_METHOD_PATH "<C method>"
/* Frame path of the one-frame rows of Ractors other than the main one
 * (labelled "Ractor #<id> <name>"): their time, without their stacks. */
#define RP_RACTOR_PATH "<Ractor>"

/* Labels that carry VM state (profile/vm_state.h maps states to them). */
#define RP_LABEL_GVL "%GVL"
#define RP_LABEL_GVL_BLOCKED "blocked"
#define RP_LABEL_GVL_WAIT "wait"
#define RP_LABEL_GC "%GC"
#define RP_LABEL_GC_MARK "mark"
#define RP_LABEL_GC_SWEEP "sweep"
#define RP_LABEL_PID "%pid"
/* The samples of a slow request kept one by one (requests.h): its id. */
#define RP_LABEL_SPAN "%span"
/* The samples of every request: its latency, a decade of ms ("<1ms",
 * "1-10ms", "10-100ms", "100ms-1s", ">=1s"). */
#define RP_LABEL_LATENCY "%latency"
/* The class of an allocated object (allocation and retained samples). */
#define RP_LABEL_CLASS "%class"
/* A sample's thread number is no label of its set, but every place that
 * shows or selects labels (pprof, --tagfocus, report --by, the viewer's
 * tags) treats it as one under this key: see rp_label_key_of. */
#define RP_LABEL_THREAD_SEQ "thread_seq"

/* Profile files in a session directory: profile-<pid>-<start_ns>.json.gz;
 * the analyzer also reads plain .json profiles. */
#define RP_PROFILE_PREFIX "profile-"
#define RP_PROFILE_SUFFIX ".json.gz"
#define RP_PROFILE_SUFFIX_PLAIN ".json"

/* Frames kept per sample; deeper stacks keep the leaf side and count in
 * "truncated_samples". */
#define RP_STACK_MAX 512

#endif
