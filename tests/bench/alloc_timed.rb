# tests/bench/alloc_other.rb — another profiler's allocation tracking
# around a workload, for scripts/bench alloc's side-by-side figures:
#   ruby -I LIB alloc_other.rb stackprof|vernier|vernier-retained|noop-hook RATE SCRIPT ARGS...
# stackprof's object mode samples one allocation in RATE; vernier's
# allocation_interval does the same; vernier's retained mode follows every
# object; noop-hook (with -r workload.so) installs a NEWOBJ hook that does
# nothing. The profile is built and dropped (not written).
profiler, rate, script, *args = ARGV
ARGV.replace(args)
rate = Integer(rate)
case profiler
when "stackprof"
  require "stackprof"
  StackProf.run(mode: :object, interval: rate) { load script }
when "vernier"
  require "vernier"
  Vernier.profile(allocation_interval: rate) { load script }
when "vernier-retained"
  require "vernier"
  Vernier.trace_retained { load script }
when "noop-hook" # workload.so, required by the caller
  RperfBench.noop_newobj_hook
  load script
else
  abort "alloc_other.rb: unknown profiler #{profiler}"
end
