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
 * A cache maps a frame's address to its name id for as long as the
 * address is known to hold the same object (liveness.h); the last whole
 * stack captured names the frames from the root that the next one
 * shares with it.
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
#include "frame_names.h"

/* The current thread's stack: at most `limit` frames from `start`, as
 * name ids leaf first into names[], with their lines into lines[] when it
 * is not NULL (0 where Ruby gives none). Returns the depth; 0 when there
 * is no Ruby frame or no memory for a new name. */
int rp_frame_capture(int start, int limit, uint32_t *names, int *lines);

/* The sampling job, around the capture it makes for a tick: `pushed`
 * control frames were pushed on this thread since the tick came
 * (gvl_holder.h); 0 after it. Where a C method stands among them, the
 * Ruby frames above it are left out of the capture: no safepoint came
 * between, so the tick's time went to the C method, not to the Ruby code
 * it called back (a parser's hook, the compiler's Integer#-@). */
void rp_frame_capture_since_tick(int pushed);

/* The name id of the frame that stands for the stacks past the cap
 * (aggregator.h), and its name. */
#define RP_CAPPED_FRAME_NAME "[truncated: too many stacks]"
uint32_t rp_frame_capture_capped(void);

/* GVL held, in a compaction of the frame names (frame_names.h): the
 * cache and the memo start afresh; the capped frame's name is renumbered. */
void rp_frame_capture_renumber(rp_frame_name_fn *fn);

/* How many frames were captured, and how many of them named anew (in
 * neither the memo nor the cache: the names read from Ruby), since
 * start. */
void rp_frame_capture_counts(uint64_t *frames_captured, uint64_t *frames_named);

#endif
