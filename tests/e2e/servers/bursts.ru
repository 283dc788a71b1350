# A Rack app whose every request spends a known CPU in Burst#work —
# about 0.6 ms of Ruby, shorter than a tick at 1 kHz — between the
# server's waits for the next request: the shape of every server's
# thread pool (tests/e2e/puma_bursts.sh). GET /truth answers the thread
# CPU time all requests spent inside Burst#work so far, in ns.
require "puma_trap_safe" # tests/e2e/servers, on RUBYLIB
class Burst
  @spent = 0
  @lock = Mutex.new
  class << self
    attr_reader :spent

    def add(ns) = @lock.synchronize { @spent += ns }
  end

  def work = (0..5500).reduce(0) { |a, k| (a * 33 + k) % 999_983 }
end

run lambda { |env|
  if env["PATH_INFO"] == "/truth"
    [200, { "content-type" => "text/plain" }, [Burst.spent.to_s]]
  else
    t = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :nanosecond)
    Burst.new.work
    Burst.add(Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :nanosecond) - t)
    [200, { "content-type" => "text/plain" }, ["ok\n"]]
  end
}
