# A session's forked and spawned children (tests/e2e/api/children.rb checks
# the program's view), with the agent dormant and under the whole-process
# profile; here, that the whole-process profile still has each process
# once, whatever the sessions inside it did.
. "$(dirname "$0")/lib.sh"
API="$RPERF_TEST_SRC/tests/e2e/api"
export RPERF_TMPDIR="$PWD/tmp"
mkdir tmp

LD_PRELOAD="$PRELOAD" RPERF_ENABLED=0 RPERF_QUIET=1 "$RUBY" "$API/children.rb" >out.txt 2>err.txt \
    || fail "children.rb, dormant: $(cat err.txt)"
grep -q "children.rb ok" out.txt || fail "children.rb, dormant, did not finish: $(cat out.txt err.txt)"

profiled s "$RUBY" "$API/children.rb" >out.txt 2>err.txt || fail "children.rb, whole process: $(cat err.txt)"
grep -q "children.rb ok" out.txt || fail "children.rb, whole process, did not finish: $(cat out.txt err.txt)"
# The root, 2 + 1 + 1 + 1 forked children (one a grandchild), the child of
# inherit: false and 2 spawned programs: 8 processes, one profile each.
files=(s/profile-*.json.gz)
[ "${#files[@]}" -eq 8 ] || fail "the whole-process session has ${#files[@]} profiles, expected 8: $(ls -A s)"
"$ANALYZE" report --top 50 s >report.txt 2>&1 || fail "report of the session: $(cat report.txt)"
grep -q "Object#spawned_work" report.txt || fail "the spawned programs are missing from the whole-process profile: $(head -30 report.txt)"
note "children: fork merged with %pid, inherit false apart, inherit true spawned merged, lost directory said; dormant and whole"
