# In cpu mode a sleep costs (almost) nothing: only CPU time is weighed.
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
[ "$nap_ns" -lt 10000000 ] || fail "sleep 0.3 was weighed ${nap_ns} ns of cpu time (expected < 10 ms)"
[ "$burn_ns" -gt 150000000 ] || fail "0.2 s of CPU was weighed only ${burn_ns} ns"
