# tests/bench/accuracy_workload.rb — the profiled side of the accuracy
# benchmark. Each thread runs a plan of calls of known cost and the
# workload writes what each method really took (thread CPU time in cpu
# mode; in wall mode its wall time, waits for the GVL included) as JSON.
#
#   ruby -r ./workload.so accuracy_workload.rb MODE THREADS SCENARIO SEED OUT.json
#
# Scenarios (every thread gets its own plan, drawn from SEED):
#   fixed       10 rounds of Ruby busy-wait 50 ms, C busy-wait 40 ms holding
#               the GVL, C sleep 30 ms holding the GVL, C sleep 20 ms without
#   c-first     12 calls of 10-70 ms in random order, the first a C call
#               that holds the GVL (busy-wait or sleep)
#   ruby-first  the same, the first a Ruby busy-wait
#   random      12 calls of 10-70 ms in random order
#   phases      for M:N threads (RUBY_MN_THREADS=1), where a thread's CPU
#               clock is its native thread's and counts other threads:
#               three phases, each of THREADS threads running one method
#               at once (Ruby loops of 2:1:1 counted iterations, the last
#               sleeping 20 ms without the GVL after its loop); a phase's
#               truth is the process's CPU time over it (cpu mode) less the
#               agent's sampling thread's, or the threads' wall time
require "json"

mode, threads, scenario, seed, out = ARGV[0], Integer(ARGV[1]), ARGV[2], Integer(ARGV[3]), ARGV[4]
CLOCK = mode == "cpu" ? Process::CLOCK_THREAD_CPUTIME_ID : Process::CLOCK_MONOTONIC

def ruby_busy(ms)
  until_t = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) + ms / 1000.0
  nil while Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) < until_t
end

# profile label => callable taking milliseconds
METHODS = {
  "Object#ruby_busy" => ->(ms) { ruby_busy(ms) },
  "RperfBench.c_busy" => ->(ms) { RperfBench.c_busy(ms) },
  "RperfBench.c_sleep_gvl" => ->(ms) { RperfBench.c_sleep_gvl(ms) },
  "RperfBench.c_sleep_nogvl" => ->(ms) { RperfBench.c_sleep_nogvl(ms) },
}
FIXED_ROUND = [["Object#ruby_busy", 50], ["RperfBench.c_busy", 40],
               ["RperfBench.c_sleep_gvl", 30], ["RperfBench.c_sleep_nogvl", 20]]
FIRST_CHOICES = {
  "c-first" => ["RperfBench.c_busy", "RperfBench.c_sleep_gvl"],
  "ruby-first" => ["Object#ruby_busy"],
  "random" => METHODS.keys,
}

def plan_for(scenario, rng)
  return FIXED_ROUND * 10 if scenario == "fixed"
  first = FIRST_CHOICES.fetch(scenario) { abort "unknown scenario #{scenario}" }
  calls = [first.sample(random: rng)] + Array.new(11) { METHODS.keys.sample(random: rng) }
  calls.map { |m| [m, 10 + rng.rand(61)] }
end

def spin(n) = n.times { }
def spin_long = spin(3_000_000)
def spin_short = spin(1_500_000)
def spin_then_wait
  spin(1_500_000)
  RperfBench.c_sleep_nogvl(20)
end

# CPU time of this process but the agent's sampling thread (schedstat: ns).
def process_cpu_ns
  agent = Dir.glob("/proc/self/task/*").sum do |task|
    File.read("#{task}/comm").start_with?("rperf-") ? File.read("#{task}/schedstat").split.first.to_i : 0
  end
  Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID, :nanosecond) - agent
end

if scenario == "phases"
  truth = {}
  %w[spin_long spin_short spin_then_wait].each do |name|
    t0 = mode == "cpu" ? process_cpu_ns : 0
    walls = Array.new(threads) do
      Thread.new do
        w0 = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
        send(name)
        Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) - w0
      end
    end.map(&:value)
    truth["Object##{name}"] = mode == "cpu" ? process_cpu_ns - t0 : walls.sum
  end
  File.write(out, JSON.generate(truth))
  exit
end

rng = Random.new(seed)
plans = Array.new(threads) { plan_for(scenario, rng) }
truths = Array.new(threads) { Hash.new(0) }
workers = plans.each_with_index.map do |plan, i|
  Thread.new do
    plan.each do |method, ms|
      t0 = Process.clock_gettime(CLOCK, :nanosecond)
      METHODS[method].call(ms)
      truths[i][method] += Process.clock_gettime(CLOCK, :nanosecond) - t0
    end
  end
end
workers.each(&:join)
total = Hash.new(0)
truths.each { |t| t.each { |k, v| total[k] += v } }
File.write(out, JSON.generate(total))
