# A Sidekiq-shaped job runner (tests/e2e/requests.sh): three worker
# threads take jobs from a queue and run each through
# Rperf::SidekiqMiddleware as Sidekiq's processor would; FastJob spends
# 1 ms of CPU, SleepyJob sleeps 20 ms. All are enqueued at the start,
# with Sidekiq's enqueued_at (Unix time in seconds): each job's queue time
# is its wait for a worker.
require "rperf/sidekiq"

def burn(seconds)
  t = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
  nil while Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) - t < seconds
end

JOBS = { "FastJob" => -> { burn(0.001) }, "SleepyJob" => -> { sleep 0.02 } }
queue = Queue.new
(["FastJob"] * 300 + ["SleepyJob"] * 60).shuffle(random: Random.new(3)).each { |c| queue << { "class" => c, "enqueued_at" => Time.now.to_f } }
3.times { queue << nil }
middleware = Rperf::SidekiqMiddleware.new
Array.new(3) do
  Thread.new do
    while (job = queue.pop)
      middleware.call(nil, job, "default") { JOBS.fetch(job["class"]).call }
    end
  end
end.each(&:join)
