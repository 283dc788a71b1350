# C code's time goes to the C method. A C method that holds the GVL runs
# no safepoint: a tick that comes meanwhile is served at the first
# safepoint after it — inside the Ruby method the C code calls back when
# it is done (a parser's hook: Nokogiri's Document#initialize, Prism's
# compiler calling Integer#-@). That sample's time was the C method's;
# before, all of it went to the callback. RperfBench.c_busy_then_call
# (tests/bench/workload.c) burns 20 ms of CPU holding the GVL, then calls
# Hooks#done, which does almost nothing: the C method's own time must be
# at least 95% of what the program measured around the calls, the
# callback's at most 3%, in both modes.
#
# And C code that burns CPU with the GVL released (RperfBench.c_busy_nogvl)
# between stretches of Ruby: in cpu mode its time goes to it, not to the
# Ruby code that runs after it (gvl_gc.c, resumed_cpu).
. "$(dirname "$0")/lib.sh"

cat >callbacks.rb <<'RUBY'
require ENV.fetch("RPERF_TEST_WORKLOAD_EXT")
clock = ENV.fetch("RPERF_MODE") == "wall" ? Process::CLOCK_MONOTONIC : Process::CLOCK_THREAD_CPUTIME_ID
class Hooks
  def done = 1 + 1
end
hooks = Hooks.new
t = Process.clock_gettime(clock, :nanosecond)
25.times { RperfBench.c_busy_then_call(20, hooks, :done) }
puts Process.clock_gettime(clock, :nanosecond) - t
RUBY

cat >nogvl.rb <<'RUBY'
require ENV.fetch("RPERF_TEST_WORKLOAD_EXT")
def now = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :nanosecond)
def ruby_burn(ns) = (t = now; nil while now - t < ns)
spent = 0
20.times do
  t = now
  RperfBench.c_busy_nogvl(15)
  spent += now - t
  ruby_burn(15_000_000)
end
puts spent
RUBY

pct() { awk -v g="$1" -v t="$2" 'BEGIN { printf "%.1f", g * 100 / t }'; }

for mode in cpu wall; do
    RPERF_MODE=$mode profiled "$WORK/$mode" "$RUBY" callbacks.rb >truth.txt || fail "$mode: exit status $?"
    f=$(only_profile "$WORK/$mode")
    truth=$(cat truth.txt)
    c_self=$(check self "$f" RperfBench.c_busy_then_call)
    hook=$(check weight "$f" Hooks#done)
    note "$mode mode: RperfBench.c_busy_then_call $(pct "$c_self" "$truth")% of the calls' $((truth / 1000000)) ms," \
        "Hooks#done $(pct "$hook" "$truth")%"
    at_least "$(pct "$c_self" "$truth")" 95 ||
        fail "$mode: the C method's own time is $(pct "$c_self" "$truth")% of the calls' (at least 95%)"
    at_least 3 "$(pct "$hook" "$truth")" ||
        fail "$mode: the callback Hooks#done has $(pct "$hook" "$truth")% of the calls' time (at most 3%)"
done

RPERF_MODE=cpu profiled "$WORK/nogvl" "$RUBY" nogvl.rb >truth.txt || fail "nogvl.rb: exit status $?"
f=$(only_profile "$WORK/nogvl")
truth=$(cat truth.txt)
got=$(check self "$f" RperfBench.c_busy_nogvl)
note "cpu mode: RperfBench.c_busy_nogvl $((got / 1000000)) ms of its $((truth / 1000000)) ms ($(pct "$got" "$truth")%)"
awk -v p="$(pct "$got" "$truth")" 'BEGIN { exit !(p >= 95 && p <= 105) }' ||
    fail "cpu mode: C code burning CPU off the GVL has $(pct "$got" "$truth")% of its time (95 to 105%)"
