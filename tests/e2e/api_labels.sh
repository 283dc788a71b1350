# Rperf.label under the agent, without the rperf gem: the API's answers
# (tests/e2e/api/labels.rb checks them itself) and the labels in the
# profile — labelled CPU time within 10% of the truth, nesting, nil
# deletes, restoring after an exception, per-thread labels, a fork child
# keeping its labels (with its own %pid) — seen through report --by,
# --tagfocus/--tagignore and go tool pprof -tagfocus.
. "$(dirname "$0")/lib.sh"
API="$RPERF_TEST_SRC/tests/e2e/api"

profiled s "$RUBY" "$API/labels.rb" >out.txt 2>err.txt || fail "labels.rb failed: $(cat err.txt)"
grep -q "labels.rb ok" out.txt || fail "labels.rb did not finish: $(cat out.txt err.txt)"
[ "$(ls s/profile-*.json.gz | wc -l)" = 2 ] || fail "expected 2 profiles (parent, fork child)"

# ms of `stat`'s total for the session with the given filters.
total_ms() {
    "$ANALYZE" report --top 1 "$@" s >r.txt 2>&1 || fail "report $*: $(cat r.txt)"
    sed -n 's/^Total: \([0-9.]*\)ms.*/\1/p' r.txt
}

# ms of value $2 of key $1 in report --by.
by_value_ms() {
    "$ANALYZE" report --by "$1" s >by.txt 2>&1 || fail "report --by $1: $(cat by.txt)"
    awk -v v="$2" '$NF == v { print $1 }' by.txt
}

# near GOT TRUTH: within 10% of the truth.
near() {
    awk -v g="$1" -v t="$2" 'BEGIN { exit !(g >= t * 0.9 && g <= t * 1.1) }'
}

expect_near() {
    local what=$1 got=$2 truth=$3
    [ -n "$got" ] || fail "$what: no time found"
    near "$got" "$truth" || fail "$what: $got ms, truth $truth ms (±10%)"
    note "$what: $got ms (truth $truth)"
}

# request=a: 300 ms; request=b: its own 200 + nested 150 + after the delete 150.
expect_near "request=a" "$(by_value_ms request a)" 300
expect_near "request=b" "$(by_value_ms request b)" 500
expect_near "nested: request=b and phase=inner" \
    "$(total_ms --tagfocus request=^b$ --tagfocus phase=^inner$)" 150
expect_near "user=42 (not after its delete)" "$(by_value_ms user 42)" 350
expect_near "nil deletes: request=b without user" \
    "$(total_ms --tagfocus request=^b$ --tagignore user=.)" 150
expect_near "threads: worker=w1" "$(by_value_ms worker w1)" 200
expect_near "threads: worker=w2" "$(by_value_ms worker w2)" 400
expect_near "fork child: tenant=forked" "$(by_value_ms tenant forked)" 200

# The child's labelled samples carry its %pid too.
expect_near "tenant=forked samples with a %pid" \
    "$(total_ms --tagfocus tenant=^forked$ --tagfocus %pid=.)" 200

# After the exception and after the block-less label was deleted, the
# time carries no label: present in the profile, absent under the label.
"$ANALYZE" report --top 100 s >all.txt 2>&1 || fail "report: $(cat all.txt)"
"$ANALYZE" report --top 100 --tagfocus step=. s >step.txt 2>&1 || fail "report --tagfocus step: $(cat step.txt)"
"$ANALYZE" report --top 100 --tagfocus tenant=. s >tenant.txt 2>&1 || fail "report --tagfocus tenant: $(cat tenant.txt)"
for m in after_raise unlabelled; do
    grep -q "Object#$m" all.txt || fail "Object#$m missing from the profile"
done
# The raising block ran no Ruby code worth a sample: its label selects
# nothing, or at most the raise itself — never what came after.
grep -q "^No samples recorded\.$\|^Total: " step.txt || fail "not a report: $(cat step.txt)"
! grep -q "Object#after_raise" step.txt || fail "the label of the raising block outlived it"
# tenant= selects the fork child's time (tenant=forked), not what ran
# after tenant was deleted.
grep -q "Object#burn_cpu" tenant.txt || fail "tenant=. selects nothing: $(cat tenant.txt)"
! grep -q "Object#unlabelled" tenant.txt || fail "Rperf.label(tenant: nil) did not delete it"

# With an rperf gem on the load path too (here a stand-in gem's lib, by
# -I and by RUBYLIB), the agent's API wins, so labels are not lost.
mkdir -p gem/lib/rperf
echo 'module Rperf; GEM = true; end' >gem/lib/rperf.rb
echo 'module Rperf; GEM = true; end' >gem/lib/rperf/rack.rb
gem_prog='require "rperf"; require "rperf/rack"
    raise "the gem was loaded" if defined?(Rperf::GEM)
    Rperf.label(via: "agent") { p Rperf.labels }'
# agent_api_wins HOW CMD...: CMD (the program above, a gem on its load
# path HOW) prints the agent's labels.
agent_api_wins() {
    local how=$1
    shift
    "$@" >gem.out 2>gem.err || fail "with a gem ($how): $(cat gem.err)"
    grep -q 'via: "agent"' gem.out || fail "with a gem ($how): $(cat gem.out)"
}
agent_api_wins -I env LD_PRELOAD="$PRELOAD" RPERF_QUIET=1 RPERF_SESSION_DIR="$WORK/gem-s" \
    "$RUBY" -Igem/lib -e "$gem_prog"
agent_api_wins RUBYLIB env RUBYLIB=gem/lib LD_PRELOAD="$PRELOAD" RPERF_QUIET=1 \
    RPERF_SESSION_DIR="$WORK/gem-s" "$RUBY" -e "$gem_prog"
note "an rperf gem on the load path (-I, RUBYLIB): the agent's API is loaded"

# pprof: the user labels are string labels go tool pprof can focus on.
"$ANALYZE" convert --pprof -o p.pb.gz s || fail "convert --pprof"
go tool pprof -top -unit=ms -tagfocus=request=a p.pb.gz >a.txt 2>a.err || fail "go tool pprof: $(cat a.err)"
grep -q "Object#in_request_a" a.txt || fail "pprof -tagfocus=request=a lost Object#in_request_a: $(cat a.txt)"
! grep -q "Object#in_request_b" a.txt || fail "pprof -tagfocus=request=a kept request=b's time"
pprof_ms=$(sed -n "s/.*accounting for \([0-9.]*\)ms.*/\1/p" a.txt | head -n 1)
expect_near "go tool pprof -tagfocus=request=a" "$pprof_ms" 300
note "api_labels: ok"
