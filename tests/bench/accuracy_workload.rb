# tests/bench/accuracy_workload.rb — the profiled side of the accuracy
# benchmark. Runs methods of known cost and writes what each really took
# (thread CPU time in cpu mode, wall time in wall mode) as JSON.
#
#   ruby -r ./workload.so accuracy_workload.rb MODE THREADS ROUNDS OUT.json
require "json"

mode, threads, rounds, out = ARGV[0], Integer(ARGV[1]), Integer(ARGV[2]), ARGV[3]
CLOCK = mode == "cpu" ? Process::CLOCK_THREAD_CPUTIME_ID : Process::CLOCK_MONOTONIC

def ruby_busy(ms)
  until_t = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) + ms / 1000.0
  nil while Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) < until_t
end

# [profile label, callable, ms per call]
STEPS = [
  ["Object#ruby_busy", ->(ms) { ruby_busy(ms) }, 50],
  ["RperfBench.c_busy", ->(ms) { RperfBench.c_busy(ms) }, 40],
  ["RperfBench.c_sleep_gvl", ->(ms) { RperfBench.c_sleep_gvl(ms) }, 30],
  ["RperfBench.c_sleep_nogvl", ->(ms) { RperfBench.c_sleep_nogvl(ms) }, 20],
]

def measure(truth, label)
  t0 = Process.clock_gettime(CLOCK, :nanosecond)
  yield
  truth[label] += Process.clock_gettime(CLOCK, :nanosecond) - t0
end

truths = Array.new(threads) { Hash.new(0) }
workers = threads.times.map do |i|
  Thread.new do
    rounds.times do
      STEPS.each { |label, fn, ms| measure(truths[i], label) { fn.call(ms) } }
    end
  end
end
workers.each(&:join)
total = Hash.new(0)
truths.each { |t| t.each { |k, v| total[k] += v } }
File.write(out, JSON.generate(total))
