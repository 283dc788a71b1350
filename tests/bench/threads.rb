# Overhead workload: threads that compute, sleep and contend for the GVL.
def compute(n) = n.times.sum { |i| i * i }
workers = 6.times.map do |t|
  Thread.new do
    20.times do |k|
      compute(40_000 + t * 5_000)
      sleep 0.002 if k.even?
    end
  end
end
workers.each(&:join)
