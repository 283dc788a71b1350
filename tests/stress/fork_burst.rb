# 20 forks in a burst while other threads run; half the children leave
# with exit!; some fork again.
spinners = 3.times.map { Thread.new { loop { 500.times.sum; Thread.pass } } }
pids = 20.times.map do |i|
  fork do
    Process.wait(fork { exit!(7) }) if i % 5 == 0
    x = 20_000.times.sum
    i.even? ? exit!(i % 7) : exit(i % 7)
  end
end
statuses = pids.map { |pid| Process.wait2(pid)[1].exitstatus }
spinners.each(&:kill)
puts "children: #{statuses.join(",")}"
