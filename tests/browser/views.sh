# The viewer's Sandwich, inverted, Source and Threads views in a real
# browser (views_test.js), each checked against rperf-analyze's own figures
# for the same session: a wall-mode, line-level session of parts of a
# program whose method `shared` is called from two places (2:1), has two
# hot lines (2:1) and allocates, and whose second thread burns CPU and then
# sleeps as long. Allocations are sampled, for the views' other measure.
# The same program is recorded with raw samples too, for the Threads tab.
. "$RPERF_TEST_SRC/tests/browser/lib.sh"

cat >prog.rb <<'RUBY'
require "cpu_burn"
def now = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
def shared(seconds)
  stop = now + seconds
  x = 0
  while now < stop
    200.times { x = (x * 31 + 7) % 1000003 }
    100.times { x = (x * 17 + 3) % 999983 }
    x += ("ab" * 8).size
  end
  x
end
def from_a(seconds) = shared(seconds)
def from_b(seconds) = shared(seconds)
from_a(1.0)
from_b(0.5)
Thread.new { burn_cpu(1.2); sleep 1.2 }.join
RUBY
RPERF_MODE=wall RPERF_LINES=1 RPERF_INTERVAL=1 RPERF_ALLOC=64 profiled "$WORK/s" "$RUBY" prog.rb || fail "prog.rb"
# The same program recorded with raw samples, which say when each was taken.
RPERF_MODE=wall RPERF_AGGREGATE=0 profiled "$WORK/raw" "$RUBY" prog.rb || fail "prog.rb, raw samples"
"$ANALYZE" convert --html -o "$WORK/raw.html" "$WORK/raw" || fail "convert --html of raw samples"
parts=("$WORK"/s/profile-*.json.gz)
[ "${#parts[@]}" -ge 3 ] || fail "${#parts[@]} parts for a run of 4 s at 1 s intervals"
# From the program's directory, as a person converts: its sources are read.
"$ANALYZE" convert --html -o "$WORK/views.html" "$WORK/s" || fail "convert --html"
"$ANALYZE" convert --html --no-source -o "$WORK/nosource.html" "$WORK/s" || fail "convert --html --no-source"
grep -q '"sources":' "$WORK/nosource.html" && fail "--no-source wrote the sources into the page"
# From elsewhere: the relative path prog.rb is the program's, read from the
# directory it started in (the profile's cwd).
(cd / && "$ANALYZE" convert --html -o "$WORK/elsewhere.html" "$WORK/s") || fail "convert --html from /"
grep -q '"prog.rb":{"lines":\["require \\"cpu_burn\\""' "$WORK/elsewhere.html" \
    || fail "converted from /, the page has not the source of prog.rb: $(grep -o '"prog.rb":{.\{0,80\}' "$WORK/elsewhere.html")"
# A source gone since: the page says so.
mv prog.rb gone.rb
"$ANALYZE" convert --html -o "$WORK/unread.html" "$WORK/s" || fail "convert --html without prog.rb"
mv gone.rb prog.rb
# One file: no times within the run. A profile without lines.
"$ANALYZE" convert --html -o "$WORK/onefile.html" "${parts[0]}" || fail "convert --html of one part"
"$RUBY" -rjson -rzlib -e '
  samples = [[[["m.rb", "Main#work"], ["m.rb", "<main>"]], 1_000_000_000, 1, 0]]
  File.binwrite(ARGV[0], Zlib.gzip(JSON.generate(mode: "cpu", frequency: 1000, aggregated_samples: samples, label_sets: [{}])))
' "$WORK/nolines.json.gz"
"$ANALYZE" convert --html -o "$WORK/nolines.html" "$WORK/nolines.json.gz" || fail "convert --html of a profile without lines"

# rperf-analyze's figures, as JSON for the test: the sandwich's rows of
# depth 1, every method's self time (the inverted tree's roots), each line
# of prog.rb (self: the frames ending on it; total: its outermost frame's),
# and thread 2's time and its time blocked.
"$ANALYZE" report --callers Object#shared "$WORK/s" >callers.txt || fail "report --callers"
"$ANALYZE" report --callees Object#shared "$WORK/s" >callees.txt || fail "report --callees"
"$ANALYZE" report --top 500 "$WORK/s" >methods.txt || fail "report"
"$ANALYZE" report --lines --top 500 "$WORK/s" >lines.txt || fail "report --lines"
"$ANALYZE" stat --tagfocus thread_seq=2 "$WORK/s" >thread2.txt || fail "stat --tagfocus thread_seq=2"
"$ANALYZE" stat --tagfocus thread_seq=2 "$WORK/raw" >raw_thread2.txt || fail "stat --tagfocus thread_seq=2 of raw samples"
"$ANALYZE" report --measure alloc --callers Object#shared "$WORK/s" >alloc_callers.txt || fail "report --measure alloc --callers"
export VIEWS_EXPECTED
VIEWS_EXPECTED=$("$RUBY" -rjson -e '
  ms = ->(text) { text.delete(",").to_f }
  # Rows of depth 1 of the sandwich.c layout: total (14 columns), share
  # (8), self (13, callees only), then two spaces per depth before the name.
  depth1 = ->(file, self_column) {
    at = self_column ? 39 : 26
    File.readlines(file, chomp: true).filter_map do |line|
      next unless line =~ /\A +[\d,.]+ +[\d.]+%/ && line[at - 2, 2] == "  " && line[at] && line[at] != " "
      { name: line[at..], total: ms[line[0, 14]], self: self_column ? ms[line[22, 13]] : nil }
    end
  }
  section = ->(file, title) {
    File.read(file).split(/^ (?=\w+:$)/).find { |s| s.start_with?(title) }.to_s.lines.filter_map do |line|
      m = line.match(/^ +([\d,.]+) ms +[\d.]+%  (.*) \((.*)\)$/) and { name: m[2], where: m[3], ms: ms[m[1]] }
    end
  }
  lines = Hash.new { |h, k| h[k] = { self: 0.0, total: 0.0 } }
  section[ARGV[3], "Flat"].each { |r| r[:where] =~ /\Aprog\.rb:(\d+)\z/ and lines[$1.to_i][:self] += r[:ms] }
  section[ARGV[3], "Cumulative"].each { |r| r[:where] =~ /\Aprog\.rb:(\d+)\z/ and lines[$1.to_i][:total] = [lines[$1.to_i][:total], r[:ms]].max }
  stat = File.read(ARGV[4])
  thread_ms = ->(text) { text.scan(/([\d,.]+) ms +[\d.]+% +\[Rperf\]/).sum { |(v)| ms[v] } }
  blocked_ms = ->(text) { ms[text[/([\d,.]+) ms +[\d.]+% +\[Rperf\] GVL blocked/, 1] || "0"] }
  raw = File.read(ARGV[6])
  puts JSON.generate(
    callers: depth1[ARGV[0], false], callees: depth1[ARGV[1], true], alloc_callers: depth1[ARGV[5], false],
    self: section[ARGV[2], "Flat"].first(6),
    lines: lines.select { |l, _| (3..12).cover?(l) }.map { |l, v| v.merge(line: l) }, # those of shared
    thread2_ms: thread_ms[stat], thread2_blocked_ms: blocked_ms[stat],
    raw_thread2_ms: thread_ms[raw], raw_thread2_blocked_ms: blocked_ms[raw])
' callers.txt callees.txt methods.txt lines.txt thread2.txt alloc_callers.txt raw_thread2.txt) || fail "reading rperf-analyze's figures"
note "expected: $VIEWS_EXPECTED"
export VIEWS_PAGE="$WORK/views.html" VIEWS_NOSOURCE_PAGE="$WORK/nosource.html" VIEWS_UNREAD_PAGE="$WORK/unread.html"
export VIEWS_ONEFILE_PAGE="$WORK/onefile.html" VIEWS_NOLINES_PAGE="$WORK/nolines.html" VIEWS_RAW_PAGE="$WORK/raw.html"
export VIEWS_SCREENSHOTS="${RPERF_TEST_ARTIFACTS:-$WORK}"
node "$browser_dir/views_test.js"
if [ "${RPERF_UPDATE_SCREENSHOT:-}" = 1 ]; then
    for view in sandwich source threads inverted; do
        cp "$VIEWS_SCREENSHOTS/views-$view.png" "$RPERF_TEST_SRC/profile/viewer/$view.png"
    done
    note "kept profile/viewer/{sandwich,source,threads,inverted}.png"
fi
