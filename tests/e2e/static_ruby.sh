# A program that has ruby_init linked in, as a static ruby does, but no
# Ruby VM (fake_static_ruby.c) runs unchanged under the agent: its getenv
# answers are libc's, nothing is printed, no session directory appears.
# (A real static ruby is profiled: the static_* tests, with_static_ruby.sh.)
. "$(dirname "$0")/lib.sh"

rc=0
LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/s" RUBY_FREE_AT_EXIT= FAKE_RUBY_VALUE="a=b" \
    "$RPERF_TEST_FAKE_STATIC_RUBY" >out.txt 2>err.txt || rc=$?
cat err.txt
[ "$rc" -eq 0 ] || fail "exit status $rc"
[ "$(cat out.txt)" = "fake static ruby ran:  a=b (none)" ] || fail "stdout changed: $(cat out.txt)"
[ ! -s err.txt ] || fail "the agent printed: $(cat err.txt)"
[ ! -e "$WORK/s" ] || fail "a session directory was created"
rc=0
LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/s" "$RPERF_TEST_FAKE_STATIC_RUBY" >out.txt 2>err.txt || rc=$?
[ "$(cat out.txt)" = "fake static ruby ran: (unset) (unset) (none)" ] || fail "stdout changed: $(cat out.txt)"
