# tests/bench/driver/bench.rb — the driver of scripts/bench, which builds
# the project and runs this file on the project's Ruby. One cmd_*.rb per
# subcommand; context.rb (paths, the scratch folder, the agent's
# environment), timing.rb (runs, pairs, medians) and peers.rb (the other
# profilers) are what they share. The usage below, up to the code, is
# what `scripts/bench` alone prints.
#
# scripts/bench — benchmarks that print figures; they never pass or fail.
#
#   scripts/bench accuracy [RUNS]   per-method error of profiles against
#                                   measured truth, cpu and wall mode, one
#                                   to four threads in five scenarios, median
#                                   and worst run (default 10 runs each)
#   scripts/bench accuracy-vs AGENT [RUNS]
#                                   the threaded scenarios of accuracy (four
#                                   threads, cpu mode) with this agent and
#                                   another (AGENT: its librperf-agent.so,
#                                   built elsewhere from an earlier commit),
#                                   run by run interleaved: each one's error
#                                   per run, and the runs above 2% (default 9)
#   scripts/bench overhead [RUNS]   run time with the agent / without, at
#                                   1000 and 10000 Hz, cpu and wall mode, on
#                                   four workloads (default 11 paired runs)
#   scripts/bench startup [N]       fixed cost: `ruby -e 1` and `sh -c true`
#                                   with and without the agent (default 50/200)
#   scripts/bench sample            per-sample cost at stack depth 10 and 150,
#                                   and beside the peers (CPU per sample taken)
#   scripts/bench sample-gem [RUNS]
#                                   per-sample cost (each one's own figure) of
#                                   this agent's API and of the rperf gem 0.9.0
#                                   in the same run, cpu and wall, depth 10 and
#                                   150, interleaved (default 7 runs)
#   scripts/bench sample-vs AGENT [RUNS]
#                                   the per-sample cost of sample (its first
#                                   part) with this agent and another
#                                   (AGENT: its librperf-agent.so, built
#                                   elsewhere from an earlier commit), run
#                                   by run interleaved (default 5 runs)
#   scripts/bench lines [RUNS]      what RPERF_LINES=1 costs: per-sample cost,
#                                   run time, file and table sizes (default 5)
#   scripts/bench api [N]           what the Rperf API costs: per labelled
#                                   block, per Rack request through the
#                                   middleware (N calls, default 200000), and
#                                   a deferred process that never enters a
#                                   profile block against an unprofiled one
#   scripts/bench soak [MINUTES] [STACK]
#                                   a server under a loopback load, under the
#                                   agent (1000 Hz, RPERF_INTERVAL=10) and
#                                   without, side by side: memory over time,
#                                   latency percentiles, parts written, the
#                                   longest pause at a boundary, requests
#                                   counted (default 2 minutes). STACK: rails
#                                   (Puma cluster + Rails + SQLite from the
#                                   tests' gems; the default when installed)
#                                   or line (a preforked server of the
#                                   standard library, with stack churn)
#   scripts/bench analyzer [MB] [lines]  rperf-analyze on a generated session
#                                   of 16 processes, MB of JSON (default 300),
#                                   against zcat of its files in the same run,
#                                   and the inflaters (zlib, libdeflate,
#                                   ISA-L); "lines": frames carry lines
#                                   (RPERF_LINES=1); RPERF_BENCH_ANALYZE=PATH
#                                   measures another build beside this one
#   scripts/bench long [MINUTES]    a long, varied recording: a random walk
#                                   over 600 methods for MINUTES of CPU at
#                                   10 kHz (default 6: the samples of an hour
#                                   at 1 kHz): parts written as the stack
#                                   table fills, time truncated, total against
#                                   CPU, peak memory beside the unprofiled
#                                   run; rperf-analyze on it against zcat;
#                                   the page's first draw and interactions
#   scripts/bench names [N]         the agent's memory over N requests of N
#                                   distinct names and labels, beside the
#                                   run without it (default 1,000,000)
#   scripts/bench churn [MINUTES]   memory of a process that loads, runs and
#                                   drops code without end, under the agent
#                                   (parts every 10 s, allocations sampled)
#                                   and without it, side by side, minute by
#                                   minute (default 30)
#   scripts/bench alloc [RUNS]      what allocation sampling (RPERF_ALLOC) costs
#                                   on two allocation-heavy workloads: run time
#                                   without the agent, with it, with sampling at
#                                   the default rate (following objects or
#                                   not), per sampled allocation and per
#                                   allocation not sampled, memory per followed
#                                   object; stackprof's object mode and
#                                   vernier's allocation tracking beside it
#                                   (installed from RubyGems into the cache,
#                                   or RPERF_BENCH_STACKPROF / _VERNIER name
#                                   their lib folders) (default 7 runs each)
#   scripts/bench attach [CYCLES]   rperf attach / detach on a running process:
#                                   how long its timer thread stops, the longest
#                                   pause of its Ruby thread while the agent
#                                   starts and while it stops and writes, and the
#                                   same program's longest pause in as long a
#                                   stretch with nothing done (default 10
#                                   cycles); then what a dormant preloaded agent
#                                   (RPERF_ENABLED=0) costs on the overhead
#                                   workloads (7 paired runs)
#   scripts/bench bursts [RUNS]     a thread working in bursts shorter than a
#                                   tick between waits (sleep, pipe, queue,
#                                   select), at 1000 Hz: each profiler's error
#                                   on the bursting method against the
#                                   program's own clock — this agent, the
#                                   rperf gem 0.9.0, stackprof, vernier; rounds
#                                   interleaved, median and worst (default 5)
#   scripts/bench peers [RUNS]      run time beside the peers in one run:
#                                   this agent (cpu, 1000 Hz), the rperf gem
#                                   0.9.0's Rperf.start, stackprof (cpu) and
#                                   vernier (wall; it has no cpu mode), all
#                                   at 1000 Hz, from RubyGems, on three
#                                   workloads; rounds interleaved, median
#                                   ratios to the unprofiled run (default 7)
#   scripts/bench gem-accuracy CHECKOUT [FIRST-LAST]
#                                   the rperf gem's own accuracy harness
#                                   (benchmark/accuracy of a checkout of its
#                                   sources, v0.9.0: git clone
#                                   https://github.com/ko1/rperf), its files
#                                   unmodified, against this agent, the rperf
#                                   gem 0.9.0, stackprof and vernier (from
#                                   RubyGems) in one run: passed scenarios
#                                   and average error per scenario file and
#                                   mode (default scenarios 0-4 of each)
#   scripts/bench all               all of the above but soak and gem-accuracy
#
# Builds what it needs first (scripts/build). These machines are shared and
# noisy: read medians, and compare runs made close together.

module Bench
  USAGE = File.foreach(__FILE__).take_while { _1.start_with?("#") }.drop_while { _1.chomp != "#" }.drop(1)
              .map { _1.sub(/^# ?/, "") }.join
  COMMANDS = {}

  # Registers a subcommand: the block gets its arguments (strings).
  def self.command(name, &run) = COMMANDS[name] = run

  ALL = %w[overhead startup sample lines api analyzer alloc attach accuracy bursts].freeze
end

require_relative "context"
require_relative "timing"
require_relative "peers"
Dir.glob(File.join(__dir__, "cmd_*.rb")).sort.each { require _1 }

Bench.command("all") do
  Bench::ALL.each_with_index do |name, i|
    puts if i.positive?
    Bench::COMMANDS.fetch(name).call
  end
end

$stdout.sync = true
name, *args = ARGV
run = Bench::COMMANDS[name]
unless run
  print Bench::USAGE
  exit 2
end
arity = run.parameters.count { _1[0] == :opt }
if args.size > arity
  Bench.usage_error("scripts/bench #{name}: takes at most #{arity} argument#{"s" unless arity == 1}, got #{args.size}")
end
run.call(*args)
