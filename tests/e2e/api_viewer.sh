# Rperf::Viewer served through a Rack stack on Debian's ruby-rack
# (tests/e2e/api/viewer.rb asks it as a browser would): with the agent
# dormant and a session open, and under the whole-process profile.
# tests/browser/served.sh loads its pages in a real browser.
. "$(dirname "$0")/lib.sh"
API="$RPERF_TEST_SRC/tests/e2e/api"
find_rack_lib

for enabled in 0 1; do
    RPERF_ENABLED=$enabled profiled "s$enabled" "$RUBY" "$API/viewer.rb" >out.txt 2>err.txt \
        || fail "viewer.rb, RPERF_ENABLED=$enabled: $(cat err.txt)"
    grep -q "viewer.rb ok" out.txt || fail "viewer.rb, RPERF_ENABLED=$enabled, did not finish: $(cat out.txt err.txt)"
done
note "viewer: routes, snapshots since the last, max_snapshots, headers, escaping; dormant with a session and whole"
