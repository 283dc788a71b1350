# tests/bench/walk.rb SECONDS — a random walk over 600 methods, 25 to 35
# calls deep, for SECONDS of this thread's CPU time: nearly every sample
# a stack never seen before, as in a long and varied run (a test suite, a
# server's many endpoints), which fills any table of stacks. Prints the
# walks and the thread's CPU time (s) on stderr.
METHODS = 600
seconds = Float(ARGV.fetch(0) { abort "usage: walk.rb SECONDS" })
METHODS.times do |i|
  Object.class_eval(<<~RUBY, "walk_#{i}.rb", 1)
    def walk_#{i}(depth)
      return __send__(WALK[rand(METHODS)], depth - 1) if depth > 0

      x = 0
      200.times { |k| x += k }
      x
    end
  RUBY
end
WALK = (0...METHODS).map { |i| :"walk_#{i}" }
clock = Process::CLOCK_THREAD_CPUTIME_ID
start = Process.clock_gettime(clock)
walks = 0
while Process.clock_gettime(clock) - start < seconds
  __send__(WALK[rand(METHODS)], 25 + rand(11))
  walks += 1
end
warn "walks #{walks} cpu #{Process.clock_gettime(clock)}"
