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

# $RPERF_SESSION_DIR set (the rperf command's session, as the gem has it),
# the agent dormant: the forked children write their profiles there, the
# result of stop holds the root alone, and stop says where the children's
# went. Set to a directory that does not exist, it is made: before, the
# children wrote nothing (31-52 ms left of 423) and nothing said so.
cat >forked_work.rb <<'RUBY'
require "rperf"
require "cpu_burn"
def child_work = burn_cpu(0.15)
Rperf.start(mode: :cpu)
pids = 3.times.map { fork { child_work } }
pids.each { Process.wait(_1) }
data = Rperf.stop
own = data[:aggregated_samples].sum { |frames, w, *| frames.any? { _2 == "Object#child_work" } ? w : 0 }
puts own
RUBY
for case in missing existing; do
    dir="$WORK/preset-$case"
    [ "$case" = missing ] || mkdir "$dir"
    RPERF_SESSION_DIR="$dir" LD_PRELOAD="$PRELOAD" RPERF_ENABLED=0 RPERF_QUIET=1 "$RUBY" forked_work.rb \
        >own.txt 2>err.txt || fail "RPERF_SESSION_DIR ($case): $(cat err.txt)"
    grep -q "forked children write their profiles into $dir (RPERF_SESSION_DIR)" err.txt ||
        fail "RPERF_SESSION_DIR ($case): stop did not say where the children's profiles went: $(cat err.txt)"
    files=("$dir"/profile-*.json.gz)
    [ "${#files[@]}" -eq 3 ] && [ -f "${files[0]}" ] ||
        fail "RPERF_SESSION_DIR ($case): ${#files[@]} children's profiles in $dir, expected 3: $(ls -A "$dir")"
    children=0
    for f in "${files[@]}"; do children=$((children + $(check weight "$f" Object#child_work))); done
    [ "$children" -ge 400000000 ] ||
        fail "RPERF_SESSION_DIR ($case): the children's profiles hold $((children / 1000000)) ms of their 450 ms"
    note "RPERF_SESSION_DIR ($case): 3 children's profiles in it, $((children / 1000000)) ms of their 450 ms; the root's result $(($(cat own.txt) / 1000000)) ms of it; stop said where"
done
