# The viewer's time strip in a real browser: a session of parts
# (RPERF_INTERVAL=1) of a program that runs three phases one after the
# other; timeline_test.js drags across the strip and clicks on it, and
# checks what the page then shows against the parts' own totals, read here
# from the part files.
. "$RPERF_TEST_SRC/tests/browser/lib.sh"

cat >phases.rb <<'RUBY'
require "cpu_burn"
def phase_a = burn_cpu(1.2)
def phase_b = burn_cpu(1.2)
def phase_c = burn_cpu(1.2)
phase_a
phase_b
phase_c
RUBY
RPERF_INTERVAL=1 profiled "$WORK/s" "$RUBY" phases.rb || fail "phases.rb"
parts=("$WORK"/s/profile-*.json.gz)
[ "${#parts[@]}" -ge 4 ] || fail "${#parts[@]} parts for a run of 3.6 s at 1 s intervals"
"$ANALYZE" convert --html -o "$WORK/timeline.html" "$WORK/s" || fail "convert --html"

# start:duration:total per part, times from the first part's start (ns).
origin=$("$RUBY" "$CHECK" field "${parts[0]}" start_time_ns)
spec=""
for f in "${parts[@]}"; do
    start=$(($("$RUBY" "$CHECK" field "$f" start_time_ns) - origin))
    spec+="$start:$("$RUBY" "$CHECK" field "$f" duration_ns):$("$RUBY" "$CHECK" total "$f") "
done
export TIMELINE_PAGE="$WORK/timeline.html" TIMELINE_PARTS="$spec"
export TIMELINE_SCREENSHOT="${RPERF_TEST_ARTIFACTS:-$WORK}/timeline.png"
note "${#parts[@]} parts: $spec"
node "$browser_dir/timeline_test.js"
if [ "${RPERF_UPDATE_SCREENSHOT:-}" = 1 ]; then
    cp "$TIMELINE_SCREENSHOT" "$RPERF_TEST_SRC/profile/viewer/timeline.png"
    note "kept profile/viewer/timeline.png"
fi
