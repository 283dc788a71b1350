# tests/e2e/cpu_burn.rb — burn_cpu(seconds) spends that much of the calling
# thread's CPU time. Test programs whose methods must show up in a profile
# burn CPU time rather than count loop iterations, so that they are sampled
# however fast or loaded the machine is. Test programs `require "cpu_burn"`
# (lib.sh puts this directory on RUBYLIB, which children inherit).
def burn_cpu(seconds)
  stop = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) + seconds
  nil while Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) < stop
end
