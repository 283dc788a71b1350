# tests/bench/sampling_share.rb — the share of the profiled run spent inside
# the sampling job: sum of sampling_time_ns / sum of duration_ns over the
# profiles given (the "profiler overhead" of the stat footer). Prints a
# fraction, e.g. 0.0021.
require "json"
require "zlib"

spent = total = 0
ARGV.each do |path|
  doc = JSON.parse(Zlib::GzipReader.open(path, &:read))
  spent += doc.fetch("sampling_time_ns")
  total += doc.fetch("duration_ns")
end
printf("%.5f\n", total.zero? ? 0 : spent.fdiv(total))
