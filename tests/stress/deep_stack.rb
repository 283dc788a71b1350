# A stack far deeper than the 512-frame capture cap, working at the bottom
# (for a span of CPU time, so it is sampled even on a loaded machine).
def dive(n)
  return work_at_the_bottom if n.zero?
  dive(n - 1)
end

def work_at_the_bottom
  stop = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) + 0.1
  nil while Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) < stop
  :bottom
end

puts dive(2000)
