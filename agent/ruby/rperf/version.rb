# frozen_string_literal: true

# rperf/version.rb — the version of the rperf gem whose API the agent serves.
module Rperf
  VERSION = "0.9.0"
end
