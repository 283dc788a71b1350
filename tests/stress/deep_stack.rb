# A stack far deeper than the 512-frame capture cap, working at the bottom
# for a span of CPU time (cpu_burn.rb, on RUBYLIB in the tests).
require "cpu_burn"

def dive(n)
  return work_at_the_bottom if n.zero?
  dive(n - 1)
end

def work_at_the_bottom
  burn_cpu(0.1)
  :bottom
end

puts dive(2000)
