# tests/bench/measure.rb — runs a command once (output discarded) and
# prints "WALL_MS CPU_MS": wall-clock time, and user+sys CPU time of the
# command and all its threads (getrusage of children, microseconds).
#   ruby measure.rb [ENV=VALUE...] COMMAND ARGS...
env = {}
env[$1] = $2 while ARGV.first =~ /\A([A-Z_][A-Z0-9_]*)=(.*)\z/m && ARGV.shift
before = Process.times
t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
pid = Process.spawn(env, *ARGV, out: File::NULL, err: File::NULL)
Process.wait(pid)
wall = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0
after = Process.times
cpu = (after.cutime - before.cutime) + (after.cstime - before.cstime)
printf("%.3f %.3f\n", wall * 1000, cpu * 1000)
