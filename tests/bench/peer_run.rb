# tests/bench/peer_run.rb — another profiler's time profile around a
# workload, for scripts/bench peers' side-by-side figures:
#   ruby -I LIB peer_run.rb rperf-gem|stackprof|vernier HZ SCRIPT ARGS...
# rperf-gem: the rperf gem's Rperf.start (cpu mode); stackprof: its cpu
# mode; vernier: its wall mode (it has no cpu mode); each at HZ samples a
# second. The profile is built and dropped (not written).
# With PEER_SAMPLES=FILE, the number of samples it took goes into FILE
# (for scripts/bench sample's cost per sample).
profiler, hz, script, *args = ARGV
ARGV.replace(args)
interval_us = 1_000_000 / Integer(hz)
samples =
  case profiler
  when "rperf-gem"
    require "rperf"
    Rperf.start(mode: :cpu, frequency: Integer(hz)) { load script }[:sampling_count]
  when "stackprof"
    require "stackprof"
    StackProf.run(mode: :cpu, interval: interval_us) { load script }[:samples]
  when "vernier"
    require "vernier"
    Vernier.profile(mode: :wall, interval: interval_us) { load script }.total_weights
  else
    abort "peer_run.rb: unknown profiler #{profiler}"
  end
File.write(ENV["PEER_SAMPLES"], "#{samples}\n") if ENV["PEER_SAMPLES"]
