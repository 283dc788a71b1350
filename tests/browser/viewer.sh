# The HTML viewer in a real browser: Debian's chromium, headless, driven by
# viewer_test.js (puppeteer-core) over the page `rperf-analyze convert
# --html` writes for a real two-process wall-mode session. The expected
# figures come from rperf-analyze's own text outputs of the same session.
. "$RPERF_TEST_SRC/tests/browser/lib.sh"

RPERF_MODE=wall profiled "$WORK/s" "$RUBY" "$browser_dir/workload.rb"
"$ANALYZE" convert --html -o "$WORK/viewer.html" "$WORK/s"

report=$("$ANALYZE" report --top 200 "$WORK/s")
# The figures the Top and Tags tables must show, as rperf-analyze gives
# them: per method "label (path)" its self and total ms as printed; per
# label key (and thread_seq) each value's ms.
export VIEWER_TABLES
VIEWER_TABLES=$(for key in %GVL %GC thread_seq; do echo "== $key"; "$ANALYZE" report --by "$key" "$WORK/s"; done |
    "$RUBY" -rjson -e '
  report, by = ARGV[0], STDIN.read
  rows = ->(title) { report.split(/^ (?=\w+:$)/).find { |s| s.start_with?(title) }.lines.filter_map { |l| l[/^ +([\d,.]+) ms +[\d.]+%  (.*)$/] && [$2, $1] } }
  top = Hash.new { |h, k| h[k] = {} }
  rows["Flat"].each { |name, ms| top[name][:self] = ms }
  rows["Cumulative"].each { |name, ms| top[name][:total] = ms }
  tags = by.split(/^== /).drop(1).to_h { |block| [block[/\A\S+/], block.scan(/^ +([\d,.]+) ms +[\d.]+%  (.*)$/).to_h { |ms, v| [v, ms] }] }
  puts JSON.generate(top: top, tags: tags)' "$report")
# cum_pct METHOD: the cumulative share of METHOD in the text report.
cum_pct() { awk -v m="$1" '/Cumulative:/ { c = 1 } c && $4 == m { sub("%", "", $3); print $3; exit }' <<<"$report"; }
cum_ms() { awk -v m="$1" '/Cumulative:/ { c = 1 } c && $4 == m { gsub(",", "", $1); print $1; exit }' <<<"$report"; }
blocked_ms=$("$ANALYZE" stat "$WORK/s" | awk '/GVL blocked/ { gsub(",", "", $1); print $1 }')
root_pid=$("$RUBY" -rjson -rzlib -e 'puts Dir[ARGV[0] + "/*.json.gz"].map { |f| JSON.parse(Zlib::GzipReader.open(f, &:read)) }.min_by { |d| d["start_time_ns"] }["pid"]' "$WORK/s")
child_file=$(ls "$WORK"/s/profile-*.json.gz | grep -v "profile-$root_pid-")
child_pid=$(basename "$child_file" | cut -d- -f2)
child_ms=$("$ANALYZE" report "$child_file" | sed -n 's/^Total: \([0-9.]*\)ms.*/\1/p')

export VIEWER_PAGE="$WORK/viewer.html"
export VIEWER_HOT=Object#hot_method VIEWER_HOT_PCT=$(cum_pct Object#hot_method)
export VIEWER_SEARCH=burn_cpu VIEWER_SEARCH_MS=$(cum_ms Object#burn_cpu)
export VIEWER_BLOCKED_MS=$blocked_ms VIEWER_CHILD_PID=$child_pid VIEWER_CHILD_MS=$child_ms
export VIEWER_SCREENSHOT="${RPERF_TEST_ARTIFACTS:-$WORK}/viewer.png"
# The differential page of the session against itself: every call path
# must find itself in the base, with the same time.
"$ANALYZE" diff --html -o "$WORK/diff.html" "$WORK/s" "$WORK/s"
export VIEWER_DIFF_PAGE="$WORK/diff.html"
# A profile whose light call paths the page folds: Util#spread under 3000
# callers of 1 µs each (thread 2) beside a second of Main#work (thread 1). Its Top table must
# still give Util#spread its exact time (rperf-analyze's report).
"$RUBY" -rjson -rzlib -e '
  samples = [[[["m.rb", "Main#work"], ["m.rb", "<main>"]], 1_000_000_000, 1, 0]]
  3000.times { |i| samples << [[["u.rb", "Util#spread"], ["c.rb", "Caller#c#{i}"], ["m.rb", "<main>"]], 1_000, 2, 0] }
  File.binwrite(ARGV[0], Zlib.gzip(JSON.generate(mode: "cpu", frequency: 1000, aggregated_samples: samples, label_sets: [{}])))
' "$WORK/folded.json.gz"
"$ANALYZE" convert --html -o "$WORK/folded.html" "$WORK/folded.json.gz"
grep -q 'id="folded-note"' "$WORK/folded.html" || fail "the folded page folds nothing"
export VIEWER_FOLDED_PAGE="$WORK/folded.html" VIEWER_SPREAD_MS
VIEWER_SPREAD_MS=$(report=$("$ANALYZE" report --top 200 "$WORK/folded.json.gz") &&
    awk '/Cumulative:/ { c = 1 } c && $4 == "Util#spread" { gsub(",", "", $1); print $1; exit }' <<<"$report")
# A server-shaped wall-mode run: six worker threads waiting on a queue all
# along (idle) beside the main thread's work. rperf-analyze --hide-idle
# leaves the six out and says so; the page's switch does the same.
cat >"$WORK/idle.rb" <<'RUBY'
require "cpu_burn"
queue = Queue.new
workers = 6.times.map { Thread.new { queue.pop } }
sleep 0.01 until queue.num_waiting == 6 # all waiting (a loaded machine starts them late)
burn_cpu(0.4)
6.times { queue << :stop }
workers.each(&:join)
RUBY
RPERF_MODE=wall profiled "$WORK/idle" "$RUBY" "$WORK/idle.rb"
"$ANALYZE" report --hide-idle "$WORK/idle" >"$WORK/idle.txt" 2>"$WORK/idle.err" || fail "report --hide-idle: $(cat "$WORK/idle.err")"
grep -q "^rperf-analyze: note: --hide-idle: 6 of 7 threads left out, idle" "$WORK/idle.err" \
    || fail "report --hide-idle does not say it left out the six idle workers: $(cat "$WORK/idle.err")"
all_ms=$("$ANALYZE" report "$WORK/idle" | sed -n 's/^Total: \([0-9.]*\)ms.*/\1/p')
busy_ms=$(sed -n 's/^Total: \([0-9.]*\)ms.*/\1/p' "$WORK/idle.txt")
main_ms=$("$ANALYZE" report --tagfocus thread_seq=1 "$WORK/idle" | sed -n 's/^Total: \([0-9.]*\)ms.*/\1/p')
[ "$busy_ms" = "$main_ms" ] || fail "--hide-idle keeps $busy_ms ms; the main thread alone has $main_ms ms"
"$ANALYZE" convert --html -o "$WORK/idle.html" "$WORK/idle"
export VIEWER_IDLE_PAGE="$WORK/idle.html" VIEWER_IDLE_BUSY_MS=$busy_ms VIEWER_IDLE_ALL_MS=$all_ms
note "--hide-idle: $busy_ms ms kept of $all_ms ms ($(sed 's/^rperf-analyze: note: //' "$WORK/idle.err"))"
note "expected: hot $VIEWER_HOT_PCT%, burn_cpu $VIEWER_SEARCH_MS ms, blocked $blocked_ms ms, child $child_pid $child_ms ms"
node "$browser_dir/viewer_test.js"
if [ "${RPERF_UPDATE_SCREENSHOT:-}" = 1 ]; then
    cp "$VIEWER_SCREENSHOT" "$RPERF_TEST_SRC/profile/viewer/screenshot.png"
    note "kept profile/viewer/screenshot.png"
fi
