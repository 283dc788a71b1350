# The rperf front end: record/stat/exec/report, exit status passthrough,
# -o formats, bad options (usage, exit 2, the command not run).
. "$(dirname "$0")/lib.sh"
RPERF="$RPERF_TEST_SRC/scripts/rperf"
export RPERF_AGENT=$RPERF_TEST_AGENT RPERF_ANALYZE=$ANALYZE
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
grep -q 'id="rperf-data"' page.html && grep -q '<td class="name">Object#work</td>' page.html \
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

# bad options: exit 2, usage, command not run
for args in "-f 0" "-f abc" "-m gpu" "--format svg" "--bogus" "--signal x"; do
    rc=0
    # shellcheck disable=SC2086
    "$RPERF" record $args "$RUBY" -e 'File.write("ran.marker", "")' >/dev/null 2>err.txt || rc=$?
    [ "$rc" = 2 ] || fail "record $args: exit status $rc, expected 2"
    [ ! -e ran.marker ] || fail "record $args: the command ran"
    grep -q "^rperf: " err.txt || fail "record $args: no message"
done
rc=0; "$RPERF" >/dev/null 2>&1 || rc=$?; [ "$rc" = 2 ] || fail "no command: exit $rc"
rc=0; "$RPERF" stat >/dev/null 2>&1 || rc=$?; [ "$rc" = 2 ] || fail "stat without a command: exit $rc"
"$RPERF" --version | grep -q "^rperf [0-9]" || fail "--version"
note "rperf front end: statuses passed through, formats by extension, bad options refused"
