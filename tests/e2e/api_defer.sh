# RPERF_DEFER=1 (and `rperf record --defer`): the agent starts paused and
# samples only while some thread is inside an Rperf.profile block; the
# program (tests/e2e/api/defer.rb) checks the trigger count does not grow
# while paused, and here the profile must hold the blocks' time and none
# of the time outside them.
. "$(dirname "$0")/lib.sh"
API="$RPERF_TEST_SRC/tests/e2e/api"

RPERF_DEFER=1 profiled s "$RUBY" "$API/defer.rb" >out.txt 2>err.txt \
    || fail "defer.rb failed: $(cat err.txt)"
grep -q "defer.rb ok" out.txt || fail "defer.rb did not finish: $(cat out.txt err.txt)"
f=$(only_profile s)

ms_of() { awk -v ns="$("$RUBY" "$CHECK" weight "$f" "$1")" 'BEGIN { printf "%.1f", ns / 1e6 }'; }
near() { awk -v g="$1" -v t="$2" 'BEGIN { exit !(g >= t * 0.9 && g <= t * 1.1) }'; }

outside=$(ms_of Object#outside)
[ "$outside" = 0.0 ] || fail "time outside profile blocks was sampled: Object#outside $outside ms"
for m in "Object#inside_a 600" "Object#inside_nested 300" "Object#other_thread 150"; do
    set -- $m
    got=$(ms_of "$1")
    near "$got" "$2" || fail "$1: $got ms, truth $2 ms (±10%)"
    note "$1: $got ms (truth $2)"
done
total=$(awk -v ns="$("$RUBY" "$CHECK" total "$f")" 'BEGIN { printf "%.1f", ns / 1e6 }')
awk -v t="$total" 'BEGIN { exit !(t <= 1050 * 1.1) }' || fail "total $total ms: more than the blocks' 1050 ms"
note "total $total ms (blocks: 1050 ms; outside them: 600 ms of CPU, absent)"
"$ANALYZE" report --by endpoint s >by.txt || fail "report --by endpoint"
grep -q "/a/nested" by.txt && grep -q " /t$" by.txt || fail "endpoint labels missing: $(cat by.txt)"

# The front end's --defer sets the variable.
PATH="$(dirname "$RUBY"):$PATH" RPERF_AGENT="$RPERF_TEST_AGENT" \
    "$RPERF_TEST_RPERF" record --defer -o rec.json.gz "$RUBY" "$API/defer.rb" \
    >out2.txt 2>err2.txt || fail "rperf record --defer: $(cat err2.txt)"
f=rec.json.gz
[ "$(ms_of Object#outside)" = 0.0 ] || fail "rperf record --defer sampled outside the blocks"
note "api_defer: ok"
