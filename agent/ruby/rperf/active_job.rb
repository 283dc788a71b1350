# frozen_string_literal: true

# rperf/active_job.rb — labels every ActiveJob with its class.
#
#   class ApplicationJob < ActiveJob::Base
#     include Rperf::ActiveJobMiddleware
#   end
#
# The label is job: "HardJob"; the job runs in an Rperf.profile block and
# is one of its class's in rperf-analyze requests (status 200 when it
# returns, 500 when it raises); when nothing is profiling (a dormant agent)
# it just runs.
# Needs ActiveSupport (Rails' activesupport gem).

require_relative "../rperf"

begin
  require "active_support/concern"
rescue LoadError => e
  raise LoadError, "rperf/active_job needs ActiveSupport (the activesupport gem, part of " \
                   "Rails), which cannot be loaded here: #{e.message}"
end

module Rperf::ActiveJobMiddleware
  extend ActiveSupport::Concern

  included do
    around_perform do |job, block|
      next block.call unless Rperf.running?

      enqueued = job.respond_to?(:enqueued_at) ? job.enqueued_at : nil
      Rperf._job(job.class.name, :job, enqueued.is_a?(Time) ? enqueued : nil) { block.call }
    end
  end
end
