# RPERF_ENABLED=0: the agent dormant until Rperf.start, then sessions with
# their own options (tests/e2e/api/dormant.rb checks the program's view);
# here, that a dormant process writes no profile and creates no session
# directory, and that its children are dormant too.
. "$(dirname "$0")/lib.sh"
API="$RPERF_TEST_SRC/tests/e2e/api"

RPERF_ENABLED=0 profiled s "$RUBY" "$API/dormant.rb" >out.txt 2>err.txt || fail "dormant.rb failed: $(cat err.txt)"
grep -q "dormant.rb ok" out.txt || fail "dormant.rb did not finish: $(cat out.txt err.txt)"
[ ! -e s ] || fail "a dormant process wrote into its session directory: $(ls -A s)"
[ ! -s err.txt ] || fail "a dormant process said something: $(cat err.txt)"

# A dormant parent's children: a forked one and a spawned one write nothing.
cat >family.rb <<'RUBY'
pid = fork { 100_000.times { 1 + 1 } }
Process.wait(pid)
system(RbConfig.ruby, "-e", "100_000.times { 1 + 1 }") or raise "the spawned child failed"
puts "family ok"
RUBY
RPERF_ENABLED=0 profiled f "$RUBY" family.rb >out.txt 2>err.txt || fail "family.rb: $(cat err.txt)"
grep -q "family ok" out.txt || fail "family.rb did not finish"
[ ! -e f ] || fail "dormant children wrote: $(ls -A f)"

# A bad value is named, as every RPERF_* variable's.
RPERF_ENABLED=yes profiled b "$RUBY" -e 'puts :ran' >out.txt 2>err.txt || fail "RPERF_ENABLED=yes changed the exit status"
grep -q '^rperf: invalid RPERF_ENABLED="yes": expected 0 or 1' err.txt || fail "RPERF_ENABLED=yes: $(cat err.txt)"
note "dormant: no file, no directory, no word; sessions checked by dormant.rb"
