# frozen_string_literal: true

# rperf.rb, as the rperf-agent gem puts it on the load path: the agent's
# own Rperf API (its Ruby files, installed with the agent in
# vendor/lib/rperf/ruby). In a process the agent is preloaded into, the
# agent puts that folder first on $LOAD_PATH and this file is never
# reached; in any other, `require "rperf"` gets the API of a profiler that
# is not started (labels and blocks just run; Rperf.start says to preload
# the agent), so code written for the gem runs unchanged.
agent_ruby = File.expand_path("../../vendor/lib/rperf/ruby", __dir__)
$LOAD_PATH.unshift(agent_ruby) unless $LOAD_PATH.include?(agent_ruby)
require File.join(agent_ruby, "rperf.rb")
