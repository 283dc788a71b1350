# frozen_string_literal: true

# rperf/sidekiq.rb — labels every Sidekiq job with its class.
#
#   Sidekiq.configure_server do |config|
#     config.server_middleware { |chain| chain.add Rperf::SidekiqMiddleware }
#   end
#
# The label is job: "HardJob"; a job that wraps an ActiveJob is labelled
# with the ActiveJob class. The job runs in an Rperf.profile block.

require_relative "../rperf"

class Rperf::SidekiqMiddleware
  def initialize(label_key: :job)
    @label_key = label_key
  end

  # The job is one of its class's (rperf-analyze requests) and runs in an
  # Rperf.profile block.
  def call(_worker, job, _queue, &block)
    name = (job["wrapped"] || job["class"]).to_s
    Rperf.request(name) { Rperf.profile(@label_key => name, &block) }
  end
end
