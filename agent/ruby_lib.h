/*
 * agent/ruby_lib.h — the agent's Ruby files on the program's load path.
 *
 * Owns: finding the folder of Ruby files installed with the agent
 * (rperf.rb, rperf/rack.rb, ... — agent/ruby/ in the source tree) and
 * putting it first on $LOAD_PATH, so that `require "rperf"` loads the
 * agent's API, also where the rperf gem is installed or bundled. That one
 * $LOAD_PATH entry is the only trace of the agent a program can see
 * without requiring it.
 *
 * The folder's rperf/rperf_agent.so is a symbolic link to the agent
 * itself: requiring it makes Ruby dlopen the agent, which the dynamic
 * loader recognises as already loaded (same file), and call its
 * Init_rperf_agent (api.c). The folder is used only when that link leads
 * to the very file this agent was loaded from.
 */
#ifndef RPERF_AGENT_RUBY_LIB_H
#define RPERF_AGENT_RUBY_LIB_H

#include <stdbool.h>

/* Main thread in ruby_init (GVL held), once the agent profiles: puts the
 * folder first on $LOAD_PATH. When there is no such folder, or it is not
 * this agent's, does nothing (says why when `verbose`). */
void rp_ruby_lib_install(bool verbose);

/* Whether this copy of the agent put its folder on the load path: false
 * in a second copy of the library that Ruby might have loaded. */
bool rp_ruby_lib_installed(void);

#endif
