# frozen_string_literal: true

# jobs.rb — the Sidekiq jobs tests/e2e/sidekiq.sh runs (sidekiq -r), and
# enqueues (ruby jobs.rb enqueue N [CLASS...]: N jobs of each): CpuJob
# burns 20 ms of CPU, SleepJob sleeps 20 ms, FailingJob raises (its retry
# is left in Sidekiq's retry set), and ReportJob is an ActiveJob run
# through Sidekiq's adapter. Every job run, failed or not, adds one to the
# Redis key "done" once it is over (the test waits for it). Under the agent
# every job goes through Rperf::SidekiqMiddleware, inside the counting.
require "sidekiq"
require "active_job"
require "cpu_burn"

ActiveJob::Base.logger = Logger.new(nil)
ActiveJob::Base.queue_adapter = :sidekiq

class CpuJob
  include Sidekiq::Job

  def perform(ms) = burn_cpu(ms / 1000.0)
end

class SleepJob
  include Sidekiq::Job

  def perform(ms) = sleep(ms / 1000.0)
end

class FailingJob
  include Sidekiq::Job
  sidekiq_options retry: 1

  def perform(n) = raise(ArgumentError, "job #{n} fails, as it should")
end

class ReportJob < ActiveJob::Base
  def perform(ms) = burn_cpu(ms / 1000.0)
end

# Outermost: counts the job once it is over, outside its time.
class CountDone
  include Sidekiq::ServerMiddleware

  def call(_job_instance, _job, _queue)
    yield
  ensure
    redis { |c| c.call("INCR", "done") }
  end
end
Sidekiq.configure_server { |config| config.server_middleware { |chain| chain.prepend CountDone } }

begin
  require "rperf/sidekiq" # the agent's: first on the load path when it is preloaded
  Sidekiq.configure_server do |config|
    config.server_middleware { |chain| chain.add Rperf::SidekiqMiddleware }
  end
rescue LoadError
  nil # no agent in this process
end

Sidekiq.configure_server { |config| config.logger.level = Logger::WARN }

if $PROGRAM_NAME == __FILE__ && ARGV[0] == "enqueue"
  n = Integer(ARGV[1])
  classes = ARGV.drop(2).empty? ? %w[CpuJob SleepJob FailingJob ReportJob] : ARGV.drop(2)
  n.times do |i|
    classes.each do |name|
      job = Object.const_get(name)
      job < ActiveJob::Base ? job.perform_later(20) : job.perform_async(job == FailingJob ? i : 20)
    end
  end
end
