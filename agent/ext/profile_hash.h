/*
 * agent/ext/profile_hash.h — a profile as the rperf gem's Ruby Hash, and
 * back.
 *
 * Owns: the shape Rperf.stop, Rperf.snapshot and Rperf.load return in gem
 * 0.9 — symbol keys :mode, :frequency, :trigger_count, :sampling_count,
 * :sampling_time_ns, :detected_thread_count, :unique_frames,
 * :unique_stacks, :start_time_ns, :duration_ns (and the other counters
 * and process facts a profile has), :aggregated_samples (each [frames
 * leaf first as [path, label] (plus the line and first line when
 * recorded), weight_ns, thread_seq, label_set_id]), :raw_samples for a
 * profile of raw samples (then :aggregated_samples too, folded from them,
 * as the gem gives both), and :label_sets when any sample has labels (id →
 * Hash of symbol keys to string values, 0 being {}; the VM state labels
 * %GVL and %GC and %pid are in them, as the gem merges its VM states in) —
 * and reading such a Hash, from the gem or written by hand, back into a
 * profile for the encoders.
 * Context: GVL held. Building allocates Ruby objects from a profile in C
 * memory, so a GC meanwhile changes nothing; reading raises ArgumentError
 * or TypeError naming what is wrong.
 */
#ifndef RPERF_AGENT_EXT_PROFILE_HASH_H
#define RPERF_AGENT_EXT_PROFILE_HASH_H

#include "../../profile/profile.h"
#include "../base/ruby_api.h"

VALUE rp_profile_hash(const rp_profile *p);

/* Fills `p` (initialised by this call, aggregating; the caller frees it,
 * also when this raises) from the Hash `data`. Samples come from
 * :aggregated_samples, else :raw_samples; missing keys read as 0 (mode:
 * cpu). Strings that are not valid UTF-8 are repaired as everywhere else
 * (common/utf8.h). */
void rp_profile_from_hash(VALUE data, rp_profile *p);

#endif
