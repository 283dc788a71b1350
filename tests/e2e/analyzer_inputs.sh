# rperf-analyze on good, bad and missing inputs: each problem is one line
# naming the file; a bad file inside a directory is skipped with a warning.
. "$(dirname "$0")/lib.sh"

profiled "$WORK/s" "$RUBY" -e 'require "cpu_burn"; def work = burn_cpu(0.05); work'
good=$(only_profile "$WORK/s")

expect_error() {
    local what=$1 needle=$2
    shift 2
    local rc=0
    "$ANALYZE" report "$@" >out.txt 2>err.txt || rc=$?
    [ "$rc" = 1 ] || fail "$what: exit status $rc, expected 1"
    grep -q "^rperf-analyze: error: .*$needle" err.txt || fail "$what: message was: $(cat err.txt)"
    note "$what: $(head -n 1 err.txt)"
}

printf 'not a profile' >junk.json.gz
"$ANALYZE" convert --pprof -o good.pb.gz "$good"
zcat good.pb.gz | head -c 60 | gzip >cut.pb.gz
head -c 100 "$good" >cut.json.gz
: >empty.json.gz
mkdir emptydir
expect_error "missing file" "missing.json.gz: No such file" missing.json.gz
expect_error "not gzip" "junk.json.gz: not valid JSON" junk.json.gz
expect_error "truncated" "cut.json.gz: .*gzip" cut.json.gz
expect_error "empty file" "empty.json.gz: empty file" empty.json.gz
expect_error "truncated pprof" "cut.pb.gz: pprof: " cut.pb.gz
"$ANALYZE" report good.pb.gz >pprof_report.txt || fail "a pprof file is not read"
grep -q "Object#work" pprof_report.txt || fail "the report of a pprof file lacks Object#work: $(head -8 pprof_report.txt)"
expect_error "empty directory" "emptydir: no profile files" emptydir
"$RUBY" -e 'print "[" * 100_000' | gzip >deep.json.gz
expect_error "absurd nesting" "deep.json.gz: not valid JSON.*depth" deep.json.gz
"$RUBY" -e 'print %({"aggregated_samples":[[[["#{"x" * 50_000_000}","m"]],1,1,0]]})' | gzip >huge.json.gz
"$ANALYZE" report huge.json.gz >huge.txt || fail "a 50 MB frame path was refused"
"$RUBY" -e 'print %({"aggregated_samples":[[[["a","m"]],1,1,0]], "label_sets":[{}, {"%GVL":"blocked"}, 3]})' | gzip >types.json.gz
expect_error "wrong label set type" "types.json.gz: label set 2 must be an object" types.json.gz
"$RUBY" -e 'print %({"aggregated_samples":[[[["a","m"]],1,1,0]], "frequency":"fast"})' | gzip >freq.json.gz
expect_error "wrong member type" "freq.json.gz: \"frequency\" must be a non-negative integer" freq.json.gz
if [ "$(id -u)" != 0 ]; then
    cp "$good" unreadable.json.gz && chmod 000 unreadable.json.gz
    expect_error "unreadable file" "unreadable.json.gz: cannot open: Permission denied" unreadable.json.gz
fi
expect_error "good file and a bad one named" "junk.json.gz" "$good" junk.json.gz

# A directory with a good and a bad profile: warning, then the report.
cp junk.json.gz "$WORK/s/profile-1-1.json.gz"
"$ANALYZE" report "$WORK/s" >out.txt 2>err.txt || fail "a bad file in a directory failed the run"
grep -q "^rperf-analyze: warning: .*profile-1-1.json.gz: not valid JSON.*skipped" err.txt \
    || fail "no warning for the bad file: $(cat err.txt)"
grep -q "Object#work" out.txt || fail "the good profile was not reported"

# Usage errors exit 2.
rc=0; "$ANALYZE" report >/dev/null 2>&1 || rc=$?; [ "$rc" = 2 ] || fail "no PATH: exit $rc"
rc=0; "$ANALYZE" report --top x "$good" >/dev/null 2>&1 || rc=$?; [ "$rc" = 2 ] || fail "bad --top: exit $rc"
rc=0; "$ANALYZE" frobnicate >/dev/null 2>&1 || rc=$?; [ "$rc" = 2 ] || fail "bad command: exit $rc"
"$ANALYZE" --version >version.txt
grep -q "^rperf-analyze [0-9]" version.txt || fail "--version"
"$ANALYZE" --help >help.txt
grep -q "report" help.txt || fail "--help"
"$ANALYZE" report --top 3 "$good" >top3.txt
[ "$(awk '/^ Flat:/{f=1;next} /^$/{f=0} f' top3.txt | wc -l)" = 3 ] || fail "--top 3 did not limit the table"
