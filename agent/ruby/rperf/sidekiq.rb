# frozen_string_literal: true

# rperf/sidekiq.rb — labels every Sidekiq job with its class.
#
#   Sidekiq.configure_server do |config|
#     config.server_middleware { |chain| chain.add Rperf::SidekiqMiddleware }
#   end
#
# The label is job: "HardJob"; a job that wraps an ActiveJob is labelled
# with the ActiveJob class. The job runs in an Rperf.profile block, and is
# one of its class's in rperf-analyze requests, from Sidekiq's enqueued_at
# (its queue time), with status 200 when it returns and 500 when it raises;
# when nothing is profiling (a dormant agent) it just runs.

require_relative "../rperf"

class Rperf::SidekiqMiddleware
  def initialize(label_key: :job)
    @label_key = label_key
  end

  # The job is one of its class's (rperf-analyze requests), queued since
  # Sidekiq's enqueued_at, and runs in an Rperf.profile block.
  def call(_worker, job, _queue, &block)
    return yield unless Rperf.running?

    name = (job["wrapped"] || job["class"]).to_s
    enqueued = job["enqueued_at"]
    enqueued = nil unless enqueued.is_a?(Numeric)
    enqueued /= 1000.0 if enqueued && enqueued > 1e11 # Sidekiq 8: milliseconds
    Rperf._job(name, @label_key, enqueued, &block)
  end
end
