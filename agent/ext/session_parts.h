/*
 * agent/ext/session_parts.h — the parts of a Rperf API session, held until
 * it is read.
 *
 * Owns: the profile that the parts of the open session add up to. The
 * core hands the extension a part whenever the session's stack table
 * fills (control/agent.h), so that no sample goes to the capped stack;
 * Rperf.snapshot and Rperf.stop give the held parts and the tables' part
 * as one profile, merged by the same code as rperf-analyze's
 * (profile/merge.h).
 *
 * Context: a Ruby thread holding the GVL (the sink runs in a postponed
 * job: it must not raise).
 */
#ifndef RPERF_AGENT_EXT_SESSION_PARTS_H
#define RPERF_AGENT_EXT_SESSION_PARTS_H

#include <stdbool.h>

#include "../../profile/profile.h"

/* A session begins: nothing held. */
void rp_session_parts_reset(void);

/* The core's sink: `part` (owned from now) joins the held parts. A part
 * that cannot be merged for lack of memory is counted as dropped samples
 * of the next one joined. */
void rp_session_parts_take(rp_profile *part);

/* `current` (the tables' part, the session's last so far) becomes the
 * whole session: the held parts and it, merged. With `keep`, the held
 * parts stay for the next read (snapshot without clear); without, they
 * are let go. Returns 0, or -1 when out of memory (`current` is then
 * left as it was: part of the session). */
int rp_session_parts_join(rp_profile *current, bool keep);

#endif
