# A ruby without libruby.so (static build) cannot be hooked: the agent says
# so in one line and the program runs unchanged.
. "$(dirname "$0")/lib.sh"

rc=0
LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/s" "$RPERF_TEST_FAKE_STATIC_RUBY" >out.txt 2>err.txt || rc=$?
cat err.txt
[ "$rc" -eq 0 ] || fail "exit status $rc"
[ "$(cat out.txt)" = "fake static ruby ran" ] || fail "stdout changed: $(cat out.txt)"
[ "$(wc -l <err.txt)" -eq 1 ] || fail "expected one line on stderr, got $(wc -l <err.txt)"
grep -q "^rperf: .*statically.*--enable-shared" err.txt || fail "message does not explain the static build"
[ ! -e "$WORK/s" ] || fail "a session directory was created"
