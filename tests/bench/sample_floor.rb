# Per-sample floor: at stack depth DEPTH (the same shape as deep.rb), how
# long the thread CPU clock and rb_profile_frames take by themselves.
#   ruby -r workload.so sample_floor.rb DEPTH
#     →  "clock_ns frames_ns cold_clock_ns cold_frames_ns"
def descend(depth)
  return RperfBench.sample_floor(200_000) if depth <= 0
  descend(depth - 1)
end

printf "%.0f %.0f %.0f %.0f\n", *descend(Integer(ARGV.fetch(0)))
