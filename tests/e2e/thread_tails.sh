# A thread's last stretch: the time since its last sample is charged to
# that sample's stack when the thread ends (agent/sampling/sampler.h,
# rp_sampler_thread_ended). At 10 Hz a thread burning 250 ms of CPU gets
# samples at about 100 and 200 ms; without the tail its last ~50 ms (0 to
# 100 ms by where the ticks fall) were lost, as they were whenever a
# busy machine made the ticks late (the CPU of four short threads came
# out 24% short under three busy loops). The truths are each thread's own
# clock around the method, which no load moves against the profile.
# The same for the process's last stretch: the main thread's time since
# its last sample, charged at the process's end. Where its ticks fall is
# chance: at 5 Hz a program of 300 ms of CPU lost 0 to 200 ms of it,
# which passed the check below one time in 15; three runs must pass.
. "$(dirname "$0")/lib.sh"

cat >tails.rb <<'RUBY'
MODE = ENV.fetch("RPERF_MODE")
CLOCK = MODE == "cpu" ? Process::CLOCK_THREAD_CPUTIME_ID : Process::CLOCK_MONOTONIC
def now = Process.clock_gettime(CLOCK, :nanosecond)
def tail_work(ns)
  t = now
  nil while now - t < ns
end
truth = 4.times.sum do
  Thread.new do
    t = now
    tail_work(250_000_000)
    now - t
  end.value
end
puts truth
RUBY

for mode in cpu wall; do
    RPERF_MODE=$mode RPERF_FREQUENCY=10 profiled "$WORK/$mode" "$RUBY" tails.rb >truth.txt \
        || fail "$mode: exit status $?"
    f=$(only_profile "$WORK/$mode")
    got=$(check weight "$f" Object#tail_work)
    truth=$(cat truth.txt)
    err=$(awk -v g="$got" -v t="$truth" 'BEGIN { printf "%.1f", (g - t) * 100 / t }')
    note "$mode at 10 Hz: Object#tail_work $((got / 1000000)) ms of four threads' $((truth / 1000000)) ms ($err%)"
    # without the tails: -20% on average, -5% at best (all four threads
    # ending just after a tick: a chance of 1 in 400)
    awk -v e="$err" 'BEGIN { exit !(e >= -4 && e <= 4) }' \
        || fail "$mode: Object#tail_work is off by $err% of the threads' own time (at most 4%)"
done

# The process's end (cpu mode): the profile's total against the main
# thread's CPU time in its last at_exit (the few ms of Ruby's boot before
# the agent starts counting are not in the profile).
cat >main_tail.rb <<'RUBY'
def now = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :nanosecond)
def main_tail(ns) = (t = now; nil while now - t < ns)
at_exit { STDERR.puts now }
main_tail(250_000_000)
RUBY
for run in 1 2 3; do
    RPERF_FREQUENCY=5 profiled "$WORK/main$run" "$RUBY" main_tail.rb 2>main_truth.txt || fail "main_tail.rb: exit status $?"
    got=$(check total "$(only_profile "$WORK/main$run")")
    truth=$(tail -n 1 main_truth.txt)
    pct=$(awk -v g="$got" -v t="$truth" 'BEGIN { printf "%.1f", g * 100 / t }')
    note "the process's end at 5 Hz, run $run: $((got / 1000000)) ms in the profile of the main thread's $((truth / 1000000)) ms ($pct%)"
    awk -v p="$pct" 'BEGIN { exit !(p >= 90 && p <= 101) }' \
        || fail "the process's last stretch: the profile holds $pct% of the main thread's CPU time (90 to 101%)"
done
