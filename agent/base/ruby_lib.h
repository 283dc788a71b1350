/*
 * agent/base/ruby_lib.h — the agent's Ruby files on the program's load path.
 *
 * Owns: finding the folder of Ruby files installed with the agent
 * (rperf.rb, rperf/rack.rb, ... — agent/ruby/ in the source tree) and
 * putting it first on $LOAD_PATH, so that `require "rperf"` loads the
 * agent's API, also where the rperf gem is installed or bundled. That one
 * $LOAD_PATH entry is the only trace of the agent a program can see
 * without requiring it.
 *
 * The folder also holds the agent's Ruby extension,
 * rperf/rperf_agent.so (agent/ext/), which rperf.rb requires: built with
 * this agent, it reaches the core through core_api.h. The folder is used
 * only when it has both rperf.rb and the extension.
 */
#ifndef RPERF_AGENT_RUBY_LIB_H
#define RPERF_AGENT_RUBY_LIB_H

#include <stdbool.h>

/* Main thread in ruby_init (GVL held), once the agent profiles: puts the
 * folder first on $LOAD_PATH. When there is no such folder, or it is not
 * this agent's, does nothing (says why when `verbose`). */
void rp_ruby_lib_install(bool verbose);

/* The extension's place in the folder. */
#define RP_RUBY_EXTENSION "rperf/rperf_agent.so"

/* The folder this agent put on the load path, or NULL. */
const char *rp_ruby_lib_folder(void);

#endif
