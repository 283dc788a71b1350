# While no thread holds the GVL the worker stops its ticks (each would
# sample nothing and cost a wake-up), and starts them again when a thread
# takes it: an idle process is hardly woken; a thread that holds the GVL
# without running (waiting in C code, or for a core on a busy machine)
# keeps them; a program that sleeps, waits on a queue or in C keeps every
# millisecond of its work, in cpu and in wall mode.
. "$(dirname "$0")/lib.sh"

# ms SESSION METHOD: the weight of METHOD's stacks, in ms.
ms() { awk -v ns="$(check weight "$(only_profile "$1")" "$2")" 'BEGIN { printf "%.0f", ns / 1e6 }'; }
# near GOT TRUTH: within 15% (the machine may be loaded).
near() { awk -v g="$1" -v t="$2" 'BEGIN { exit !(g >= t * 0.85 && g <= t * 1.15) }'; }
# paused SESSION_ERR: the pauses RPERF_VERBOSE reported; paused_ms: their length.
paused() { sed -n 's/^rperf: ticks paused while no thread held the GVL: \([0-9]*\) time.*/\1/p' "$1"; }
paused_ms() { sed -n 's/^rperf: ticks paused while no thread held the GVL: .*, \([0-9.]*\) ms in all/\1/p' "$1"; }

# An idle process: a fraction of the ticks a busy one gets.
RPERF_VERBOSE=1 profiled "$WORK/idle" "$RUBY" -e 'sleep 1.5' 2>idle.err || fail "sleep: $(cat idle.err)"
triggers=$(check field "$(only_profile "$WORK/idle")" trigger_count)
note "sleep 1.5 at 1000 Hz: $triggers triggers; $(grep 'ticks paused' idle.err)"
[ "$triggers" -lt 750 ] || fail "an idle process got $triggers ticks in 1.5 s at 1000 Hz"
[ "$(paused idle.err)" -ge 1 ] || fail "no pause reported: $(cat idle.err)"

# Waiting in C holding the GVL (1 s in all): the ticks go on.
cat >held.rb <<'RUBY'
require ENV.fetch("RPERF_TEST_WORKLOAD_EXT")
5.times { RperfBench.c_sleep_gvl(200) }
RUBY
RPERF_VERBOSE=1 profiled "$WORK/held" "$RUBY" held.rb 2>held.err || fail "held.rb: $(cat held.err)"
note "1 s in C holding the GVL: $(grep 'ticks paused' held.err)"
awk -v ms="$(paused_ms held.err)" 'BEGIN { exit !(ms != "" && ms < 100) }' \
    || fail "ticks paused while a thread held the GVL: $(grep 'ticks paused' held.err)"

# Sleeping, waiting on a queue, and waiting in C holding the GVL, each
# followed by work (in C: at once, the thread taking the GVL no more); the program measures each method on the mode's clock
# (its thread's CPU time, or wall time), and that is the truth.
cat >phases.rb <<'RUBY'
require "cpu_burn"
require ENV.fetch("RPERF_TEST_WORKLOAD_EXT")
CLOCK = ENV["RPERF_MODE"] == "wall" ? Process::CLOCK_MONOTONIC : Process::CLOCK_THREAD_CPUTIME_ID
$truth = Hash.new(0)
def measured(name)
  t = Process.clock_gettime(CLOCK)
  yield
  $truth[name] += Process.clock_gettime(CLOCK) - t
end
# first_work: 40 ms right after a thread woke, before the longer work —
# charged to the longer work instead if the ticks came back late
def first_work = measured(:first_work) { burn_cpu(0.04) }
def after_sleep = measured(:after_sleep) { first_work; burn_cpu(0.15) }
def after_queue = measured(:after_queue) { first_work; burn_cpu(0.15) }
def after_held = measured(:after_held) { burn_cpu(0.3) }
def held = measured(:held) { RperfBench.c_sleep_gvl(250) }
queue = Queue.new
worker = Thread.new { 2.times { queue.pop; after_queue } }
2.times do
  sleep 0.25
  after_sleep
end
2.times do
  sleep 0.25
  queue << 1
  sleep 0.25
end
worker.join
held
after_held
File.write(ENV.fetch("TRUTH"), $truth.map { |k, v| "#{k} #{(v * 1000).round}\n" }.join)
RUBY
truth() { awk -v m="$2" '$1 == m { print $2 }' "$1"; }
for mode in cpu wall; do
    TRUTH=$mode.truth RPERF_MODE=$mode RPERF_VERBOSE=1 profiled "$WORK/$mode" "$RUBY" phases.rb 2>$mode.err \
        || fail "$mode: $(cat $mode.err)"
    methods=(first_work after_sleep after_queue after_held)
    [ $mode = wall ] && methods+=(held)
    line=""
    for m in "${methods[@]}"; do
        line+=" $m $(ms "$WORK/$mode" Object#$m) ms (truth $(truth $mode.truth $m));"
    done
    note "$mode:$line $(grep 'ticks paused' $mode.err)"
    [ "$(paused $mode.err)" -ge 3 ] || fail "$mode: fewer pauses than sleeps: $(cat $mode.err)"
    # four short stretches of work, each right after a wake-up: a tick or
    # two late at each is fine, the poll's 50 ms is not
    first=$(ms "$WORK/$mode" Object#first_work) first_truth=$(truth $mode.truth first_work)
    awk -v g="$first" -v t="$first_truth" 'BEGIN { exit !(g >= t * 0.7 && g <= t * 1.15 + 4) }' \
        || fail "$mode: Object#first_work weighs $first ms, truth $first_truth: the ticks came back late"
    for m in "${methods[@]}"; do
        [ $m = first_work ] && continue
        near "$(ms "$WORK/$mode" Object#$m)" "$(truth $mode.truth $m)" \
            || fail "$mode: Object#$m weighs $(ms "$WORK/$mode" Object#$m) ms, truth $(truth $mode.truth $m)"
    done
done
