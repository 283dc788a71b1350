# Per-sample cost inside a profiler's sampling job, measured by the
# profiler itself, for scripts/bench sample-gem:
#   ruby [-I GEM_LIB] job_cost.rb MODE HZ SCRIPT ARGS...
# Rperf.start(mode:, frequency:) around SCRIPT, then Rperf.stop's
# sampling_time_ns / sampling_count: the rperf gem's when its lib folder
# is on the load path, this agent's API when it is preloaded dormant
# (RPERF_ENABLED=0). Both start after Ruby has booted and stop before it
# exits, so neither counts naming the frames of boot.
#   →  "us_per_sample samples"
mode, hz, script, *args = ARGV
ARGV.replace(args)
require "rperf"
Rperf.start(mode: mode.to_sym, frequency: Integer(hz))
load script
d = Rperf.stop
printf("%.4f %d\n", d[:sampling_time_ns] / 1000.0 / d[:sampling_count], d[:sampling_count])
