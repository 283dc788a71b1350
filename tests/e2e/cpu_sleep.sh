# In cpu mode a sleep costs (almost) nothing: only CPU time is weighed.
# The sample that falls in the sleep carries the CPU time burnt since the
# tick before it, so its weight is one tick's interval when ticks come on
# time and more when the machine is busy and the ticker thread waits for a
# core (11.6 ms seen under two busy loops on 2 cores): the bound is a sixth
# of the sleep's 300 ms, which wall mode would weigh in full.
. "$(dirname "$0")/lib.sh"

cat >prog.rb <<'RUBY'
require "cpu_burn"
def burn = burn_cpu(0.2)

def nap
  sleep 0.3
end

burn
nap
RUBY
profiled "$WORK/s" "$RUBY" prog.rb
profile=$(only_profile "$WORK/s")
nap_ns=$(check weight "$profile" "Object#nap")
burn_ns=$(check weight "$profile" "Object#burn")
note "nap: ${nap_ns} ns, burn: ${burn_ns} ns"
[ "$nap_ns" -lt 50000000 ] || fail "sleep 0.3 was weighed ${nap_ns} ns of cpu time (expected < 50 ms)"
[ "$burn_ns" -gt 150000000 ] || fail "0.2 s of CPU was weighed only ${burn_ns} ns"
