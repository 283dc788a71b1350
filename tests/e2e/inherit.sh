# RPERF_INHERIT=0: only the first process is profiled; forked children stay
# quiet and spawned children do not get the agent, while other preloaded
# libraries stay in their LD_PRELOAD.
. "$(dirname "$0")/lib.sh"

cat >prog.rb <<'RUBY'
Process.wait(fork { 100_000.times.sum })
system(RbConfig.ruby, "-e", "100_000.times.sum")
system("sh", "-c", 'echo "child LD_PRELOAD=[$LD_PRELOAD]"')
RUBY

other="$RPERF_TEST_EMPTY_PRELOAD"
LD_PRELOAD="$other:$PRELOAD" RPERF_INHERIT=0 RPERF_SESSION_DIR="$WORK/s" RPERF_QUIET=1 \
    "$RUBY" prog.rb >out.txt
count=$(ls "$WORK/s" | grep -c '^profile-')
note "RPERF_INHERIT=0: $count profile(s); $(cat out.txt)"
[ "$count" = 1 ] || fail "expected exactly one profile, found $count"
# every preload but the agent stays (with sanitizers, their runtimes too)
kept="$other${RPERF_TEST_PRELOAD_FIRST:+:$RPERF_TEST_PRELOAD_FIRST}"
grep -qx "child LD_PRELOAD=\[$kept\]" out.txt || fail "child's LD_PRELOAD: $(cat out.txt), expected [$kept]"

LD_PRELOAD="$other:$PRELOAD" RPERF_SESSION_DIR="$WORK/all" RPERF_QUIET=1 "$RUBY" prog.rb >out.txt
count=$(ls "$WORK/all" | grep -c '^profile-')
[ "$count" = 3 ] || fail "with inheritance: expected 3 profiles, found $count"
grep -q "librperf-agent" out.txt || fail "with inheritance the child lost the agent: $(cat out.txt)"
