# Overhead / per-sample workload: work at the bottom of a deep stack.
#   ruby deep.rb DEPTH ITERATIONS
def descend(depth, iterations)
  return work(iterations) if depth <= 0
  descend(depth - 1, iterations)
end

def work(iterations)
  i = 0
  s = 0
  while i < iterations
    s += i
    i += 1
  end
  s
end

depth = Integer(ARGV.fetch(0, 150))
iterations = Integer(ARGV.fetch(1, 30_000_000))
descend(depth, iterations)
