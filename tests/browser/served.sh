# Rperf::Viewer's pages in a real browser, over HTTP with the viewer's own
# headers: served_server.rb, under the whole-process profile, serves a
# snapshot; served_test.js opens the index and the snapshot's page in
# Debian's chromium. The screenshot is kept as served.png.
. "$RPERF_TEST_SRC/tests/browser/lib.sh"

profiled "$WORK/s" "$RUBY" "$browser_dir/served_server.rb" "$WORK/port" "$WORK/done" 2>"$WORK/server.err" &
server=$!
for _ in $(seq 100); do
    [ -s "$WORK/port" ] || ! kill -0 "$server" 2>/dev/null && break
    sleep 0.1
done
[ -s "$WORK/port" ] || fail "served_server.rb did not start: $(cat "$WORK/server.err")"

export VIEWER_ORIGIN="http://127.0.0.1:$(cat "$WORK/port")" VIEWER_HOT=Object#hot_method
export VIEWER_SCREENSHOT="${RPERF_TEST_ARTIFACTS:-$WORK}/served.png"
status=0
node "$browser_dir/served_test.js" || status=$?
touch "$WORK/done"
wait "$server" || fail "served_server.rb failed: $(cat "$WORK/server.err")"
exit $status
