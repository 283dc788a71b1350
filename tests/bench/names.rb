# Requests of many distinct names, each with a label of its own (a
# server's slugs, digests and scanners' random paths): prints the
# process's resident memory (kB) every `step` requests, for scripts/bench
# names to put beside the same run without the agent.
#   ruby names.rb TOTAL STEP
total, step = ARGV.map { Integer(_1) }
begin
  require "rperf"
rescue LoadError
  module Rperf
    def self.request(_name) = yield
    def self.label(**) = yield
  end
end
rss = -> { File.read("/proc/self/status")[/VmRSS:\s*(\d+)/, 1] }
total.times do |i|
  Rperf.request("GET /items/#{i}") { Rperf.label(item: i.to_s) { (1..10).sum } }
  puts "#{i + 1} #{rss.call}" if (i + 1) % step == 0
end
