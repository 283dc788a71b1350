/*
 * agent/base/ruby_version.h — the Ruby the agent runs in, against the one
 * it was built for.
 *
 * Owns: the check every start of the agent makes first. The agent is
 * compiled against one Ruby's headers (their inline helpers and struct
 * layouts are part of the code), so it profiles only a Ruby of that same
 * API version (major.minor, as ruby_api_version says at run time); in any
 * other — Debian's Ruby 3.1, a 3.3, a 4.0 for an agent built for 3.4 —
 * the program runs as without it. And which versions' internal layouts
 * (ruby_layout.h) have been checked against that version's source: only
 * those are ever read.
 */
#ifndef RPERF_AGENT_RUBY_VERSION_H
#define RPERF_AGENT_RUBY_VERSION_H

#include <stdbool.h>
#include <stddef.h>

#include "ruby_api.h"

/* Ruby versions whose rb_thread_t, rb_execution_context_t, rb_ractor_t
 * and default GC's struct heap_page were read in their source and match
 * ruby_layout.h, gvl_holder.c and ractors.c: 3.4 (3.4.5) and 4.0 (4.0.1). */
#define RP_RUBY_LAYOUT_CHECKED                                                                     \
    ((RUBY_API_VERSION_MAJOR == 3 && RUBY_API_VERSION_MINOR == 4) ||                               \
     (RUBY_API_VERSION_MAJOR == 4 && RUBY_API_VERSION_MINOR == 0))

/* Any context: the running Ruby has the API version the agent was built
 * for (false where there is no libruby at all). */
static inline bool rp_ruby_is_built_for(void)
{
    return &ruby_api_version && ruby_api_version[0] == RUBY_API_VERSION_MAJOR &&
           ruby_api_version[1] == RUBY_API_VERSION_MINOR;
}

/* Any context: Ruby's internal layouts may be read — this is the Ruby the
 * agent was built for, and that one's layouts were checked. Each reader
 * still checks on the live structures that they point where it expects. */
static inline bool rp_ruby_layout_known(void)
{
    return RP_RUBY_LAYOUT_CHECKED && rp_ruby_is_built_for();
}

/* Main thread in ruby_init (GVL held) or a postponed job: writes the
 * one-line reason the agent does not profile this Ruby into `buf`, e.g.
 * "not profiling this process: it runs Ruby 3.1.2 (/usr/bin/ruby3.1) and
 * this agent is built for Ruby 3.4; build rperf against this Ruby (…)". */
void rp_ruby_version_mismatch(char *buf, size_t size);

#endif
