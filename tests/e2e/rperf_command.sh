# The rperf front end: record/stat/exec/report, exit status passthrough,
# -o formats, bad options (usage, exit 1 as the gem, the command not run).
. "$(dirname "$0")/lib.sh"
RPERF="$RPERF_TEST_RPERF"
export RPERF_AGENT=$RPERF_TEST_AGENT
[ -z "${RPERF_TEST_PRELOAD_FIRST:-}" ] || export LD_PRELOAD=$RPERF_TEST_PRELOAD_FIRST

cat >prog.rb <<'RUBY'
require "cpu_burn"
def work = burn_cpu(0.1)
work
puts "ran"
exit Integer(ARGV[0] || 0)
RUBY

rc=0; "$RPERF" record "$RUBY" prog.rb 7 >out.txt 2>err.txt || rc=$?
[ "$rc" = 7 ] || fail "record: exit status $rc, expected 7"
[ "$(cat out.txt)" = ran ] || fail "record: stdout $(cat out.txt)"
[ -f rperf.json.gz ] || fail "record: no rperf.json.gz"
check schema rperf.json.gz >/dev/null || fail "record: bad rperf.json.gz"

"$RPERF" report --text >report.txt || fail "report --text failed"
grep -q "Object#work" report.txt \
    || fail "report lacks Object#work ($(check field rperf.json.gz sampling_count) samples): $(head -12 report.txt)"
"$RPERF" report --top >top.txt || fail "report --top failed"
[ "$(grep -c ' ms ' top.txt)" -le 40 ] && grep -q "Object#work" top.txt || fail "report --top: $(cat top.txt)"

# report: the viewer page; opened with xdg-open when there is a display,
# its path printed when there is none.
"$RPERF" report --html >page.html || fail "report --html failed"
grep -q 'id="rperf-data"' page.html && grep -q '"Object#work"' page.html \
    || fail "report --html wrote no viewer page: $(head -c 300 page.html)"
page=$(env -u DISPLAY -u WAYLAND_DISPLAY TMPDIR="$WORK" "$RPERF" report rperf.json.gz 2>report.err) \
    || fail "report without a display failed: $(cat report.err)"
[[ $page == "$WORK"/*/rperf-report.html ]] && cmp -s "$page" page.html \
    || fail "report without a display printed '$page', not the page's path"
mkdir bin
printf '#!/bin/sh\necho "$1" >"%s/opened"\n' "$WORK" >bin/xdg-open
chmod +x bin/xdg-open
out=$(PATH="$WORK/bin:$PATH" DISPLAY=:99 TMPDIR="$WORK" "$RPERF" report 2>report.err) || fail "report with a display failed"
[ -z "$out" ] && grep -q "^rperf: opening $WORK/[^/]*/rperf-report.html$" report.err && [ -f "$(cat opened)" ] \
    || fail "report with a display did not open the page: out '$out', err $(cat report.err)"

rc=0; "$RPERF" stat "$RUBY" prog.rb 3 >out.txt 2>stat.txt || rc=$?
[ "$rc" = 3 ] || fail "stat: exit status $rc"
[ "$(cat out.txt)" = ran ] || fail "stat: stdout changed"
grep -q "Performance stats for" stat.txt || fail "stat: no summary on stderr"
grep -q "\[Rperf\] CPU execution" stat.txt || fail "stat: no breakdown"

"$RPERF" exec -o prof.pb.gz "$RUBY" prog.rb >/dev/null 2>exec.txt || fail "exec failed"
grep -q "^ Flat:$" exec.txt || fail "exec: no report tables"
"$RPERF" report --text prof.pb.gz >pb_report.txt || fail "report of a .pb.gz failed"
grep -q "Object#work" pb_report.txt || fail "report of a .pb.gz lacks Object#work: $(head -8 pb_report.txt)"
"$RPERF" diff rperf.json.gz prof.pb.gz >diff.txt || fail "rperf diff failed"
grep -q "^ Cumulative (total time), by absolute change:" diff.txt || fail "rperf diff: $(head -5 diff.txt)"
page=$(env -u DISPLAY -u WAYLAND_DISPLAY TMPDIR="$WORK" "$RPERF" diff --html rperf.json.gz prof.pb.gz 2>/dev/null) \
    || fail "rperf diff --html failed"
grep -q '"diff":{"base_total_ns"' "$page" || fail "rperf diff --html printed '$page', not a differential page"
[ "$(head -c 2 prof.pb.gz | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "exec -o x.pb.gz is not gzip"
"$RPERF" record -o prof.collapsed "$RUBY" prog.rb >/dev/null 2>&1 || fail "record -o .collapsed"
grep -qE ";Object#work(;.*)? [0-9]+$" prof.collapsed || fail "collapsed output"
"$RPERF" record --format text -o prof.out "$RUBY" prog.rb >/dev/null 2>&1 || fail "record --format text"
grep -q "^ Flat:$" prof.out || fail "--format text"
"$RPERF" record -p "$RUBY" prog.rb >printed.txt 2>/dev/null || fail "record -p"
grep -q "^Total: " printed.txt || fail "record -p prints no report"

# a command killed by a signal: 128 + N
rc=0; "$RPERF" stat "$RUBY" -e 'Process.kill(:KILL, $$)' >/dev/null 2>&1 || rc=$?
[ "$rc" = 137 ] || fail "killed command: exit status $rc, expected 137"

# bad options: exit 1, the command not run, the rperf gem's words
bad() {
    local want=$1 rc=0
    shift
    "$RPERF" "$@" "$RUBY" -e 'File.write("ran.marker", "")' >/dev/null 2>err.txt || rc=$?
    [ "$rc" = 1 ] || fail "$*: exit status $rc, expected 1 (the gem's)"
    [ ! -e ran.marker ] || fail "$*: the command ran"
    grep -qF -- "$want" err.txt || fail "$*: expected '$want', got: $(cat err.txt)"
}
bad "frequency must be a positive integer (got 0)" stat -f 0
bad "frequency must be <= 10000 (10KHz), got 99999" record -f 99999
bad "invalid argument: --frequency abc" record -f abc
bad "invalid argument: --mode gpu" record -m gpu
bad "--format must be json, pprof" record --format svg
bad "invalid option: --bogus" record --bogus
bad "Usage: rperf record" record --bogus
bad "--signal must be a signal number or 'false'" record --signal x
bad "signal 9 (KILL) cannot be caught" record --signal 9
for cmd in record stat exec; do
    rc=0; "$RPERF" "$cmd" >/dev/null 2>err.txt || rc=$?
    [ "$rc" = 1 ] && grep -q "^No command specified\.$" err.txt || fail "$cmd without a command: exit $rc, $(cat err.txt)"
done
rc=0; "$RPERF" >/dev/null 2>err.txt || rc=$?
[ "$rc" = 1 ] && grep -q "^Usage: rperf" err.txt || fail "no subcommand: exit $rc, $(cat err.txt)"
rc=0; "$RPERF" bogus >/dev/null 2>err.txt || rc=$?
[ "$rc" = 1 ] && grep -q 'Unknown subcommand: "bogus"' err.txt || fail "unknown subcommand: exit $rc, $(cat err.txt)"

# help, usage and version
# (each into a file: grep -q leaving a pipe early would fail it under pipefail)
"$RPERF" -v >out.txt && grep -q "^rperf [0-9]*\.[0-9]*\.[0-9]*$" out.txt || fail "-v: $(cat out.txt)"
"$RPERF" --version >out.txt && grep -q "^rperf [0-9]" out.txt || fail "--version"
"$RPERF" -h >out.txt && grep -q "^Usage: rperf record" out.txt || fail "-h: $(cat out.txt)"
"$RPERF" help >manual.txt || fail "help"
for section in OVERVIEW "CLI USAGE" "RUBY API" "PROFILING MODES" "OUTPUT FORMATS" "VM STATE LABELS" \
    "INTERPRETING RESULTS" "DIAGNOSING COMMON PERFORMANCE PROBLEMS"; do
    grep -q "^$section$" manual.txt || fail "the manual has no $section section"
done
"$RPERF" record -h >out.txt && grep -q -- "--frequency" out.txt || fail "record -h"
"$RPERF" stat -h >out.txt && grep -q -- "--report" out.txt || fail "stat -h"
"$RPERF" diff -h >out.txt && grep -q -- "--top" out.txt || fail "diff -h"

# report and diff: files that are missing, and diff --top BASE TARGET
rc=0; "$RPERF" report --top missing.json.gz >/dev/null 2>err.txt || rc=$?
[ "$rc" = 1 ] && grep -q "^File not found: missing.json.gz$" err.txt || fail "report of a missing file: exit $rc, $(cat err.txt)"
rc=0; "$RPERF" diff --top rperf.json.gz missing.pb.gz >/dev/null 2>err.txt || rc=$?
[ "$rc" = 1 ] && grep -q "^File not found: missing.pb.gz$" err.txt || fail "diff of a missing file: exit $rc, $(cat err.txt)"
"$RPERF" record -o base.json.gz "$RUBY" -e 'def a = 20_000.times { 1 + 1 }; 50.times { a }' 2>/dev/null
"$RPERF" diff --top base.json.gz rperf.json.gz >diff.txt || fail "diff --top BASE TARGET: $(cat diff.txt)"
grep -q "^ Flat" diff.txt || fail "diff --top prints no table: $(cat diff.txt)"
note "rperf front end: statuses passed through, formats by extension, the gem's words for bad options, help and manual"
