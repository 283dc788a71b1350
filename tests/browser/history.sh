# rperf report DIR, the history across commits, as a developer uses it: a
# small git repository of five commits, each making Object#render do twice
# as much (a block of Ruby arithmetic, so that the method itself, not the
# C method Enumerable#sum that calls it, has the most self time) (render(20_000 * 2**(k - 1)) beside an unchanged parse), `rperf record
# --snapshot-dir snaps` at each; then `rperf report --port P snaps` serves
# the history page and history_test.js opens it in Debian's chromium:
# the five listed newest first under their branch with their commits'
# short shas and subjects, the sparkline of Object#render against each
# snapshot's own table (rperf-analyze report --format table-json), the
# difference of the newest against the oldest chosen in the page and its
# Object#render box against each file's own self time. Screenshots:
# history.png (the page), history-diff.png.
. "$RPERF_TEST_SRC/tests/browser/lib.sh"
export RPERF_AGENT="$RPERF_TEST_AGENT"
RPERF="$RPERF_TEST_RPERF"

mkdir repo && cd repo || fail "cd repo"
git init -q -b main && git config user.name history && git config user.email history@example.com
for k in 1 2 3 4 5; do
    cat >app.rb <<RUBY
def parse(n) = n.times.map { |i| i.to_s * 3 }
def render(n) = n.times.sum { |i| ((i * i + 7) % 11 + i * 3 - i % 5) * 2 + (i & 3) }
def handle
  parse(20_000)
  render(20_000 * 2**($k - 1))
end
10.times { handle }
RUBY
    git add app.rb && git commit -qm "render step $k" || fail "commit $k"
    "$RPERF" record --snapshot-dir "$WORK/snaps" "$RUBY" app.rb >/dev/null 2>rec.err || fail "record $k: $(cat rec.err)"
    file=$(sed -n 's/^rperf: profile written to //p' rec.err)
    [ -f "$file" ] || fail "commit $k: no snapshot file ($(cat rec.err))"
    echo "$(git rev-parse --short=7 HEAD) $file" >>"$WORK/order.txt"
done
cd "$WORK" || fail "cd"

# each snapshot's own figures of Object#render, oldest first: self and
# total share (rperf-analyze's table of that file)
while read -r sha file; do
    "$ANALYZE" report --format table-json --top 1000 "$file" >table.json || fail "table-json $file"
    "$RUBY" -rjson -e 'rows = JSON.parse(File.read(ARGV[0]))
        r = rows.find { |x| x["method"] == "Object#render" } or abort "no Object#render in #{ARGV[2]}"
        puts JSON.generate(sha: ARGV[1], self_pct: r["self_pct"], total_pct: r["total_pct"])' \
        table.json "$sha" "$file" >>truth.jsonl || fail "truth of $file"
done <order.txt
[ "$(wc -l <truth.jsonl)" = 5 ] || fail "five snapshots expected: $(cat order.txt)"

port=$(free_port)
"$RPERF" report --port "$port" snaps 2>serve.err &
server=$!
at_exit 'kill "$server" 2>/dev/null'
wait_http "http://127.0.0.1:$port/" 20
url="http://127.0.0.1:$port/"
grep -q "5 snapshots in snaps" serve.err || fail "not five snapshots: $(cat serve.err)"

# a directory of snapshots is not a session: the text views say so
rc=0
"$RPERF" report --top snaps >top.out 2>top.err || rc=$?
[ "$rc" = 1 ] && grep -q "is a directory of snapshots" top.err || fail "report --top snaps: status $rc, $(cat top.err)"

export HISTORY_ORIGIN="${url%/}" HISTORY_TRUTH="$WORK/truth.jsonl" HISTORY_BRANCH=main
export HISTORY_SCREENSHOT="${RPERF_TEST_ARTIFACTS:-$WORK}/history.png"
export HISTORY_DIFF_SCREENSHOT="${RPERF_TEST_ARTIFACTS:-$WORK}/history-diff.png"
status=0
node "$browser_dir/history_test.js" || status=$?
kill -INT "$server"
wait "$server" || fail "rperf report snaps exited $?: $(cat serve.err)"
grep -q "stopped serving" serve.err || fail "no stop said: $(cat serve.err)"
exit $status
