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

  def call(_worker, job, _queue, &block)
    Rperf.profile(@label_key => (job["wrapped"] || job["class"]).to_s, &block)
  end
end
