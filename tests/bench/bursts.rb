# A thread that works in bursts shorter than a tick between waits — a
# server's thread pool: Object#work runs about 0.3 ms of Ruby, then the
# thread waits (a sleep, a pipe read, a Thread::Queue#pop, IO.select) for
# about 0.7 ms, fed by another thread where there is something to wait
# for. Prints, on stdout, the truth: the thread CPU time (cpu mode) or
# the wall time (wall mode) spent inside Object#work, in ns; then the
# CPU time of the program's own threads (scripts/bench bursts' share).
#   ruby bursts.rb KIND ITERATIONS
kind = ARGV.fetch(0)
n = Integer(ARGV.fetch(1))
clock = ENV.fetch("RPERF_MODE", "cpu") == "wall" ? Process::CLOCK_MONOTONIC : Process::CLOCK_THREAD_CPUTIME_ID
thread_cpu = -> { Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :nanosecond) }
started = thread_cpu.()
def work = (0..6000).reduce(0) { |a, k| (a * 33 + k) % 999_983 }

case kind
when "pipe", "select"
  r, w = IO.pipe
  feeder = Thread.new { n.times { sleep 0.0007; w.write("x") }; thread_cpu.() }
when "queue"
  q = Thread::Queue.new
  feeder = Thread.new { n.times { sleep 0.0007; q << 1 }; thread_cpu.() }
end
spent = 0
n.times do
  t = Process.clock_gettime(clock, :nanosecond)
  work
  spent += Process.clock_gettime(clock, :nanosecond) - t
  case kind
  when "sleep" then sleep 0.0007
  when "pipe" then r.read(1)
  when "select" then IO.select([r]) && r.read_nonblock(1)
  when "queue" then q.pop
  else abort "unknown kind #{kind}"
  end
end
feeder_cpu = feeder ? feeder.value : 0
puts "#{spent} #{thread_cpu.() - started + feeder_cpu}"
