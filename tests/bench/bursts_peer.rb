# tests/bench/bursts_peer.rb — the bursts workload (bursts.rb) under a
# profiler, for scripts/bench bursts: prints "WORK_NS TOTAL_NS GOT GOT_TOTAL",
# the time the program measured inside Object#work and in all (its own
# threads' CPU time in cpu mode, elapsed time in wall mode), and
# what the profiler gave the stacks holding Object#work and in all, in
# its own unit: each profiler's share of Object#work is set against the
# truth's (stackprof takes fewer samples than asked, so its times are
# not comparable, its shares are).
#   ruby -I LIB bursts_peer.rb rperf|stackprof|vernier MODE HZ KIND N
# rperf: Rperf.start — the rperf gem's, or this agent's when it is
# preloaded (dormant) and LIB is its Ruby folder; stackprof: its cpu or
# wall mode; vernier: wall mode only (it has no cpu mode), the main
# thread's samples.
require "stringio"
profiler, mode, hz, *workload = ARGV
interval_us = 1_000_000 / Integer(hz)
ENV["RPERF_MODE"] = mode # bursts.rb's clock
truth = +""
elapsed = 0
run = lambda do
  ARGV.replace(workload)
  $stdout = StringIO.new(truth)
  t = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
  load File.join(__dir__, "bursts.rb")
  elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) - t
ensure
  $stdout = STDOUT
end
holds_work = ->(labels) { labels.include?("Object#work") }
got, got_total =
  case profiler
  when "rperf"
    require "rperf"
    Rperf.start(mode: mode.to_sym, frequency: Integer(hz))
    run.()
    samples = Rperf.stop[:aggregated_samples]
    [samples.sum { |frames, w, *| holds_work.(frames.map { _2 }) ? w : 0 }, samples.sum { _2 }]
  when "stackprof"
    require "stackprof"
    r = StackProf.run(mode: mode.to_sym, interval: interval_us) { run.() }
    work = r[:frames].values.find { |f| f[:name] == "Object#work" }
    [work ? work[:total_samples] : 0, r[:samples]]
  when "vernier"
    require "vernier"
    r = Vernier.profile(mode: :wall, interval: interval_us) { run.() }
    [r.each_sample.sum { |stack, w| holds_work.(stack.frames.map(&:label)) ? w : 0 }, r.each_sample.sum { _2 }]
  else
    abort "bursts_peer.rb: unknown profiler #{profiler}"
  end
work, threads_cpu = truth.split.map { Integer(_1) }
puts "#{work} #{mode == "cpu" ? threads_cpu : elapsed} #{got} #{got_total}"
