# frozen_string_literal: true

# rperf/without_agent.rb — the Rperf API in a process the agent is not
# loaded into (a child handed RUBYOPT=-rrperf that does not preload
# librperf-agent.so): everything behaves as the gem does when it is not
# started — labels and blocks just run, snapshot and stop are nil — and
# Rperf.start says why it cannot record.
module Rperf
  class << self
    def start(**)
      raise RuntimeError, "rperf: the agent is not loaded in this process; run Ruby with " \
                          "LD_PRELOAD=librperf-agent.so (or the rperf command)"
    end

    def stop = nil
    def snapshot(clear: false) = nil
    def running? = false
    def labels = {}

    def label(**)
      block_given? ? yield : nil
    end

    def profile(**)
      raise ArgumentError, "Rperf.profile requires a block" unless block_given?
      raise RuntimeError, "Rperf is not started"
    end

    def _profile_if_running(**)
      raise ArgumentError, "Rperf._profile_if_running requires a block" unless block_given?

      yield
    end

    def request(_name, status: nil, queued_at: nil)
      raise ArgumentError, "Rperf.request requires a block" unless block_given?

      yield
    end

    def _request_begin(_name, _queued_at = nil) = nil
    def _request_end(_status) = nil
    def _session_forked? = false
  end
end
