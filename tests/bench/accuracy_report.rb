# tests/bench/accuracy_report.rb — compares a profile with the truth the
# workload measured and prints one table row per method.
#
#   ruby accuracy_report.rb PROFILE.json.gz TRUTH.json TITLE
# Prints the rows, then "avg_error <percent>" as the last line.
require "json"
require "zlib"

profile_path, truth_path, title = ARGV
doc = JSON.parse(Zlib::GzipReader.open(profile_path, &:read))
truth = JSON.parse(File.read(truth_path))
samples = doc["aggregated_samples"] || doc["raw_samples"]
total_truth = truth.values.sum.to_f

profiled = Hash.new(0)
samples.each do |frames, weight, *|
  labels = frames.map { |_, label| label }.uniq
  truth.each_key { |m| profiled[m] += weight if labels.include?(m) }
end

puts "#{title}"
puts format("  %-26s %10s %10s %8s", "method", "truth ms", "profile ms", "error")
errors = truth.map do |method, t|
  p = profiled[method]
  # A method whose true cost is (near) zero in this mode — a sleep in cpu
  # mode — is judged by the share of the whole it wrongly received.
  err = t > 0.02 * total_truth ? (p - t).abs / t.to_f : (p - t).abs / total_truth
  puts format("  %-26s %10.1f %10.1f %7.2f%%", method, t / 1e6, p / 1e6, err * 100)
  err
end
avg = errors.sum / errors.size * 100
puts format("  %-26s %32.2f%%", "average error", avg)
puts "avg_error #{avg}"
