# tests/bench/pauses.rb — the program of `scripts/bench attach`: a main
# thread running short steps (about 50 us each) until the file ARGV[0]
# appears, noting every gap between two steps longer than 0.5 ms; at the
# end it writes them to ARGV[1] as "START_NS GAP_NS" lines (CLOCK_REALTIME,
# as `date +%s%N`), and prints "ready" once running.
stop, out = ARGV
gaps = []
$stdout.sync = true
puts "ready"
prev = Process.clock_gettime(Process::CLOCK_REALTIME, :nanosecond)
until File.exist?(stop)
  x = 0
  300.times { x += 1 }
  now = Process.clock_gettime(Process::CLOCK_REALTIME, :nanosecond)
  gaps << "#{prev} #{now - prev}" if now - prev > 500_000
  prev = now
end
File.write(out, gaps.join("\n") + "\n")
