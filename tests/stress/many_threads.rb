# 200 threads that sleep and compute, then 3000 short-lived threads.
def compute(n) = n.times.sum { |i| i * 2 }
results = Queue.new
threads = 200.times.map do |i|
  Thread.new do
    3.times { sleep 0.001 * (i % 5); results << compute(1000 + i) }
  end
end
threads.each(&:join)
sums = []
sums << results.pop until results.empty?
puts "long-lived: #{sums.size} results, total #{sums.sum}"
short = 3000.times.map { |i| Thread.new { i * i } }.sum(&:value)
puts "short-lived: #{short}"
