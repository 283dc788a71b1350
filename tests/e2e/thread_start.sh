# A thread that starts another thread and goes on computing is sampled
# from its first tick. Ruby points its "running" execution context at a
# new thread as soon as that thread's native thread starts, before it has
# the GVL; ticks then went to the waiting thread, and the computing one
# took no sample until it released the GVL, where all its time landed at
# once (here: on Kernel#sleep). Without the fix this program lost every
# round, in both modes. Then threads that begin with a long C call.
. "$(dirname "$0")/lib.sh"

cat >prog.rb <<'RUBY'
require "cpu_burn"
def compute_after_thread_new = burn_cpu(0.06)
clock = ARGV[0] == "cpu" ? Process::CLOCK_THREAD_CPUTIME_ID : Process::CLOCK_MONOTONIC
spent = 0
5.times do
  t = Thread.new {}
  t0 = Process.clock_gettime(clock, :nanosecond)
  compute_after_thread_new
  spent += Process.clock_gettime(clock, :nanosecond) - t0
  sleep 0.03
  t.join
end
puts spent
RUBY

for mode in cpu wall; do
    truth=$(RPERF_MODE=$mode profiled "$WORK/$mode" "$RUBY" prog.rb "$mode")
    profile=$(only_profile "$WORK/$mode")
    computed=$(check weight "$profile" "Object#compute_after_thread_new")
    # Time on Kernel#sleep's stack that is not %GVL=blocked/wait: running
    # time that belongs to the method before it.
    on_sleep=$(check labeled "$profile" "Kernel#sleep" -)
    note "$mode: compute_after_thread_new took $((truth / 1000000)) ms, profile" \
         "$((computed / 1000000)) ms; running time charged to sleep $((on_sleep / 1000000)) ms"
    at_least "$computed" "$(awk -v t="$truth" 'BEGIN { print 0.9 * t }')" \
        || fail "$mode: compute_after_thread_new got $computed ns of $truth ns"
    at_least "$(awk -v t="$truth" 'BEGIN { print 0.1 * t }')" "$on_sleep" \
        || fail "$mode: Kernel#sleep was charged $on_sleep ns of running time"
done

# A thread whose first work is a long C call holding the GVL (no safepoint
# inside): its clock starts where the thread is first seen, at its first
# GVL acquisition, so the call is charged when it returns. When clocks
# started at a thread's first charge instead, wall mode lost all of it.
cat >c_first.rb <<'RUBY'
ARR = Array.new(1_000_000) { rand }
clock = ARGV[0] == "cpu" ? Process::CLOCK_THREAD_CPUTIME_ID : Process::CLOCK_MONOTONIC
def c_first(arr) = arr.sort
spent = Array.new(4) do
  Thread.new do
    t0 = Process.clock_gettime(clock, :nanosecond)
    c_first(ARR)
    Process.clock_gettime(clock, :nanosecond) - t0
  end
end.sum(&:value)
puts spent
RUBY
for mode in cpu wall; do
    truth=$(RPERF_MODE=$mode profiled "$WORK/c-$mode" "$RUBY" c_first.rb "$mode")
    sorted=$(check weight "$(only_profile "$WORK/c-$mode")" "Array#sort")
    note "$mode: Array#sort first in 4 threads took $((truth / 1000000)) ms, profile $((sorted / 1000000)) ms"
    at_least "$sorted" "$(awk -v t="$truth" 'BEGIN { print 0.9 * t }')" \
        || fail "$mode: a thread's first C call got $sorted ns of $truth ns"
done
