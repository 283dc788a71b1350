/*
 * agent/sampling/frame_capture.h — capturing the current stack as frame names.
 *
 * Owns: turning the frames Ruby reports (rb_profile_frames: an iseq, or a
 * method entry) into frame name ids (frame_names.h) at the moment they are
 * captured, so that no table, buffer or held request sample of the agent
 * refers to — and so marks, keeps alive or pins — an object of the
 * program; and the cache that makes this cheap. Names are read without
 * allocating (the label Ruby's rb_profile_frame_full_label would give,
 * with no address in it): capture runs inside allocations too.
 *
 * The cache maps a frame's address to its name id for as long as the
 * address is known to hold the same object: a frame object on the stack
 * at a capture is alive and cannot be freed before the next GC begins,
 * and an old one (promoted) not before the next major GC, which is also
 * the only GC that moves objects (compaction). An entry is tagged with
 * the GC count (young object) or the major GC count (old object) of the
 * moment it was made, and serves only while that count holds; one made
 * while an incremental marking is in progress serves only while that
 * marking lasts; entries are never made during a GC.
 *
 * Context: a Ruby thread holding the GVL, in the capture contexts (the
 * sampling job, the GVL and GC hooks, the allocation hook inside an
 * allocation, the requests' hooks). Allocates no Ruby object, raises
 * nothing, calls no Ruby method.
 */
#ifndef RPERF_AGENT_FRAME_CAPTURE_H
#define RPERF_AGENT_FRAME_CAPTURE_H

#include <stdint.h>

#include "../base/ruby_api.h"

/* Main thread at start (GVL held): installs the hook that counts GC
 * epochs, and primes what the capture calls inside GC and allocations. */
void rp_frame_capture_init(void);

/* The current thread's stack: at most `limit` frames from `start`, as
 * name ids leaf first into names[], with their lines into lines[] when it
 * is not NULL (0 where Ruby gives none). Returns the depth; 0 when there
 * is no Ruby frame or no memory for a new name. */
int rp_frame_capture(int start, int limit, uint32_t *names, int *lines);

/* The name id of the frame that stands for the stacks past the cap
 * (aggregator.h), and its name. */
#define RP_CAPPED_FRAME_NAME "[truncated: too many stacks]"
uint32_t rp_frame_capture_capped(void);

/* How many frames the captures looked up in the cache, and how many of
 * them were named anew (a miss: the names read from Ruby), since start. */
void rp_frame_capture_counts(uint64_t *frames_looked_up, uint64_t *frames_named);

#endif
