# The viewer's Requests tab in a real browser: a program recording three
# endpoints with Rperf.request in wall mode, one of them sleeping 30 ms in
# one call of 20; requests_test.js reads the endpoint table, the latency
# histogram and the slow requests, and clicks one to get its own flame
# graph, against rperf-analyze requests --json (read here).
. "$RPERF_TEST_SRC/tests/browser/lib.sh"

cat >app.rb <<'RUBY'
require "rperf"
def fast = 3000.times { }
def slow = sleep(0.03)
def cpu = 100_000.times { } # a few ms: far below the sleep, even on a busy machine
300.times do |i|
  Rperf.request("GET /fast") { fast }
  Rperf.request("GET /slow") { i % 20 == 0 ? slow : fast }
  Rperf.request("GET /cpu") { cpu } if i % 10 == 0
end
RUBY
RPERF_MODE=wall profiled "$WORK/s" "$RUBY" app.rb || fail "app.rb"
"$ANALYZE" convert --html -o "$WORK/requests.html" "$WORK/s" || fail "convert --html"
"$ANALYZE" requests --json "$WORK/s" >"$WORK/requests.json" || fail "requests --json"
export REQUESTS_PAGE="$WORK/requests.html" REQUESTS_JSON="$WORK/requests.json"
export REQUESTS_SCREENSHOT="${RPERF_TEST_ARTIFACTS:-$WORK}/requests.png"
node "$browser_dir/requests_test.js"
if [ "${RPERF_UPDATE_SCREENSHOT:-}" = 1 ]; then
    cp "$REQUESTS_SCREENSHOT" "$RPERF_TEST_SRC/profile/viewer/requests.png"
    note "kept profile/viewer/requests.png"
fi
