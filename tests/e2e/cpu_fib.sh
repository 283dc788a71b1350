# A CPU-bound method dominates the cpu profile, and the profile file is
# well-formed, complete and named profile-<pid>-<start_ns>.json.gz.
. "$(dirname "$0")/lib.sh"

profiled "$WORK/s" "$RUBY" "$RPERF_TEST_SRC/examples/fib.rb" 36 >out.txt
grep -q "fibonacci(36) = 14930352" out.txt || fail "program output changed: $(cat out.txt)"
profile=$(only_profile "$WORK/s")
[[ $(basename "$profile") =~ ^profile-[0-9]+-[0-9]{19}\.json\.gz$ ]] || fail "bad file name $profile"
[ -z "$(find "$WORK/s" -name '*.tmp.*')" ] || fail "temporary file left behind"
[ "$(stat -c %a "$WORK/s")" = 700 ] || fail "session directory mode is $(stat -c %a "$WORK/s")"
check schema "$profile"

"$ANALYZE" report "$WORK/s" >report.txt
cat report.txt | head -12
pct=$(flat_percent report.txt "Object#fibonacci")
note "Object#fibonacci flat: $pct%"
at_least "$pct" 90 || fail "Object#fibonacci has $pct% of flat cpu time, expected >= 90%"
grep -q "^Total: .*ms (cpu)$" report.txt || fail "no Total line"
grep -q "^Samples: [0-9]*, Frequency: 1000Hz$" report.txt || fail "no Samples line"
