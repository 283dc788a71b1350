# tests/browser/workload.rb — the program whose profile the viewer's
# browser test opens: two processes (a forked child), two threads in the
# parent, CPU time in known methods, a sleep (GVL blocked) and garbage
# collection. Run in wall mode.
require "cpu_burn"

def hot_method = burn_cpu(0.6)
def warm_method = burn_cpu(0.15)
def nap = sleep(0.3)
def child_work = burn_cpu(0.25)

def churn
  kept = nil
  15.times { kept = Array.new(100_000) { |i| "s#{i}" } }
  kept.size
end

pid = fork { child_work }
napper = Thread.new do
  nap
  warm_method
end
hot_method
churn
napper.join
Process.wait(pid)
