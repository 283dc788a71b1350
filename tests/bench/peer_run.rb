# tests/bench/peer_run.rb — another profiler's time profile around a
# workload, for scripts/bench peers' side-by-side figures:
#   ruby -I LIB peer_run.rb rperf-gem|stackprof|vernier HZ SCRIPT ARGS...
# rperf-gem: the rperf gem's Rperf.start (cpu mode); stackprof: its cpu
# mode; vernier: its wall mode (it has no cpu mode); each at HZ samples a
# second. The profile is built and dropped (not written).
profiler, hz, script, *args = ARGV
ARGV.replace(args)
interval_us = 1_000_000 / Integer(hz)
case profiler
when "rperf-gem"
  require "rperf"
  Rperf.start(mode: :cpu, frequency: Integer(hz)) { load script }
when "stackprof"
  require "stackprof"
  StackProf.run(mode: :cpu, interval: interval_us) { load script }
when "vernier"
  require "vernier"
  Vernier.profile(mode: :wall, interval: interval_us) { load script }
else
  abort "peer_run.rb: unknown profiler #{profiler}"
end
