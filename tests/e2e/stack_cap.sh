# RPERF_MAX_STACKS: a program that keeps producing new stacks (methods
# compiled afresh by class_eval: new code, new frames) fills the stack
# table up to the cap; beyond
# it, samples still count, on one "[truncated: too many stacks]" frame
# under their own thread, and RPERF_VERBOSE says how much went there.
. "$(dirname "$0")/lib.sh"

cat >churn.rb <<'RUBY'
require "cpu_burn"
200.times do |i|
  Object.class_eval("def churn_#{i} = burn_cpu(0.005)")
  send(:"churn_#{i}")
end
RUBY
RPERF_MAX_STACKS=30 RPERF_VERBOSE=1 profiled s "$RUBY" churn.rb >out.txt 2>err.txt \
    || fail "churn.rb: $(cat err.txt)"
f=$(only_profile s)
stacks=$("$RUBY" "$CHECK" field "$f" unique_stacks)
[ "$stacks" -le 31 ] || fail "$stacks distinct stacks kept, cap 30 (+ the truncated one)"
ms() { awk -v ns="$1" 'BEGIN { printf "%.1f", ns / 1e6 }'; }
capped=$(ms "$("$RUBY" "$CHECK" weight "$f" "[truncated: too many stacks]")")
total=$(ms "$("$RUBY" "$CHECK" total "$f")")
burnt=$(ms "$("$RUBY" "$CHECK" weight "$f" Object#burn_cpu)")
# 200 methods of 5 ms each get sampled even with a loaded machine's coarse
# ticks, so the cap is reached early and most of the time is truncated.
awk -v c="$capped" 'BEGIN { exit !(c >= 400) }' || fail "only $capped ms on the truncated stack"
# Every sample still counts: the 1000 ms burnt are in the total.
awk -v t="$total" 'BEGIN { exit !(t >= 1000 * 0.9) }' || fail "total $total ms, the program burnt 1000"
"$RUBY" "$CHECK" threads "$f" "[truncated: too many stacks]" | grep -q "^1 " \
    || fail "the truncated stack is not under thread 1"
grep -q "went to \[truncated: too many stacks\]: the profile reached RPERF_MAX_STACKS=30" err.txt \
    || fail "RPERF_VERBOSE did not say so: $(cat err.txt)"
note "cap 30: $stacks stacks kept, $capped ms truncated, $burnt ms on kept stacks, total $total ms"
