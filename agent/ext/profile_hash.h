/*
 * agent/ext/profile_hash.h — a profile as the rperf gem's Ruby Hash.
 *
 * Owns: the shape Rperf.snapshot and Rperf.stop return in gem 0.9 —
 * symbol keys :mode, :frequency, :trigger_count, :sampling_count,
 * :sampling_time_ns, :dropped_samples (when any), :detected_thread_count,
 * :unique_frames, :unique_stacks, :start_time_ns, :duration_ns,
 * :aggregated_samples (each [frames leaf first as [path, label],
 * weight_ns, thread_seq, label_set_id]) and :label_sets (id → Hash of
 * symbol keys to string values, 0 being {}; the VM state labels %GVL and
 * %GC and %pid are in them, as the gem merges its VM states in).
 * Context: GVL held; allocates Ruby objects only, from a profile in C
 * memory, so a GC meanwhile changes nothing.
 */
#ifndef RPERF_AGENT_PROFILE_HASH_H
#define RPERF_AGENT_PROFILE_HASH_H

#include "../../profile/profile.h"
#include "../ruby_api.h"

VALUE rp_profile_hash(const rp_profile *p);

#endif
