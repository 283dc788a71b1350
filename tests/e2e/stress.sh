# Hostile programs run identically with and without the agent (stdout and
# exit status), in cpu and wall mode, at 1000 and 10000 Hz.
. "$(dirname "$0")/lib.sh"
programs="$RPERF_TEST_SRC/tests/stress"
without_asan_quarantine # fork_burst.rb

run_plain() {
    local rc=0
    (cd "$WORK" && timeout 120 "$RUBY" "$programs/$1" >"$WORK/plain.out" 2>"$WORK/plain.err") || rc=$?
    echo "$rc"
}

# run_profiled PROGRAM MODE HZ SESSION: its exit status.
run_profiled() {
    rm -rf "$4"
    (cd "$WORK" && RPERF_MODE=$2 RPERF_FREQUENCY=$3 timeout 120 \
        env LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$4" RPERF_QUIET=1 \
        "$RUBY" "$programs/$1" >"$WORK/agent.out" 2>"$WORK/agent.err")
}

for program in many_threads.rb deep_stack.rb fork_burst.rb signals.rb concurrency.rb exec_ruby.rb; do
    want=$(run_plain "$program")
    [ "$want" != 124 ] || fail "$program: hangs even without the agent"
    for mode in cpu wall; do
        for hz in 1000 10000; do
            session="$WORK/$program-$mode-$hz"
            rc=0
            retry_asan_fork_hang run_profiled "$program" "$mode" "$hz" "$session" || rc=$?
            [ "$rc" = "$want" ] || fail "$program $mode@$hz: exit status $rc, expected $want ($(tail -3 "$WORK/agent.err"))"
            cmp -s "$WORK/plain.out" "$WORK/agent.out" \
                || fail "$program $mode@$hz: output differs: $(diff "$WORK/plain.out" "$WORK/agent.out" | head -5)"
            for f in "$session"/profile-*.json.gz; do
                [ -e "$f" ] || fail "$program $mode@$hz: no profile"
                check schema "$f" >/dev/null || fail "$program $mode@$hz: bad profile $f"
            done
        done
    done
    note "$program: exit $want, same output in cpu/wall at 1000/10000 Hz"
done

# The deep stack was cut at 512 frames, leaf side kept, and counted.
f=$(ls "$WORK"/deep_stack.rb-cpu-1000/profile-*.json.gz | head -1)
truncated=$(check field "$f" truncated_samples)
[ "$truncated" -gt 0 ] || fail "deep stack: no truncated samples counted"
"$ANALYZE" report "$WORK/deep_stack.rb-cpu-1000" >deep.txt
grep -q "Integer#times\|Object#dive" deep.txt || fail "deep stack: leaf side missing"
note "deep stack: $truncated samples truncated at 512 frames"
