# Several threads with different work: two compute, one sleeps, the main
# thread joins them. In cpu mode the sleeping thread costs nothing.
def busy_sum(iterations)
  sum = 0
  iterations.times { |i| sum += i * i }
  sum
end

def nap(seconds)
  sleep seconds
end

workers = [
  Thread.new { busy_sum(4_000_000) },
  Thread.new { busy_sum(2_000_000) },
  Thread.new { nap(0.3) },
]
workers.each(&:join)
puts "done: #{workers.size} threads"
