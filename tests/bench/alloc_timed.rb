# tests/bench/alloc_timed.rb — a workload run under one profiler's
# allocation tracking (or none), timed from its first line to its last,
# for scripts/bench alloc:
#   ruby [-I LIB] alloc_timed.rb none|agent|stackprof|vernier|vernier-retained|noop-hook RATE SCRIPT ARGS...
# none and agent: nothing here (the agent, when preloaded, profiles the
# whole process); stackprof's object mode samples one allocation in RATE;
# vernier's allocation_interval does the same; vernier's retained mode
# follows every object; noop-hook (with -r workload.so) installs a NEWOBJ
# hook that does nothing. A profiler's profile is built and dropped (not
# written). With RPERF_BENCH_TIMED set, writes "CPU_MS WALL_MS THREAD_MS"
# of the workload to that file: the process's CPU time over it (every
# thread's: a profiler's own threads too), its wall time, and the CPU time
# of the thread that runs it (where allocations are sampled, by every
# profiler here) — the program's own time, without what happens before it
# (the process's start, a profiler's loading) or after it (the agent's
# profile written).
profiler, rate, script, *args = ARGV
ARGV.replace(args)
rate = Integer(rate)

def timed(script)
  clocks = [Process::CLOCK_PROCESS_CPUTIME_ID, Process::CLOCK_MONOTONIC, Process::CLOCK_THREAD_CPUTIME_ID]
  start = clocks.map { Process.clock_gettime(_1) }
  load script
  times = clocks.zip(start).map { |clock, t0| Process.clock_gettime(clock) - t0 }
  out = ENV["RPERF_BENCH_TIMED"]
  File.write(out, times.map { format("%.3f", _1 * 1000) }.join(" ")) if out
end

case profiler
when "none", "agent"
  timed(script)
when "stackprof"
  require "stackprof"
  StackProf.run(mode: :object, interval: rate) { timed(script) }
when "vernier"
  require "vernier"
  Vernier.profile(allocation_interval: rate) { timed(script) }
when "vernier-retained"
  require "vernier"
  Vernier.trace_retained { timed(script) }
when "noop-hook" # workload.so, required by the caller
  RperfBench.noop_newobj_hook
  timed(script)
else
  abort "alloc_timed.rb: unknown profiler #{profiler}"
end
