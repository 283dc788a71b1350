# A stack far deeper than the 512-frame capture cap, working at the bottom.
def dive(n)
  return 300_000.times.sum if n.zero?
  dive(n - 1)
end
puts dive(2000)
