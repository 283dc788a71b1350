# frozen_string_literal: true

# rperf.rb — the rperf gem's API, served by librperf-agent.so.
#
# A program running under the agent (LD_PRELOAD=librperf-agent.so ruby
# app.rb) finds this folder first on $LOAD_PATH, so `require "rperf"`
# loads this file, also where the rperf gem is installed. The methods are
# the agent's own (agent/api.c in the rperf sources) and put their labels
# into the profiles the agent writes:
#
#   Rperf.label(request: id) { ... }   labels this thread's samples in the block
#   Rperf.label(tenant: "a")           ... or from now on (nil deletes a key)
#   Rperf.labels                       # => {request: "42", tenant: "a"}
#   Rperf.profile(endpoint: "/users") { ... }
#                                      labels, and with RPERF_DEFER=1 samples
#                                      only while some thread is in such a block
#   Rperf.snapshot(clear: false)       the profile so far, as the gem's Hash
#   Rperf.start(**opts) / Rperf.stop   a window of the profile, returned (and
#                                      written to output: "x.json.gz") by stop
#   Rperf.running?                     whether the agent profiles this process
#
# Middlewares: require "rperf/rack", "rperf/sidekiq", "rperf/active_job".

require_relative "rperf/version"
require_relative "rperf/rperf_agent.so"
