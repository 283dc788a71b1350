# The viewer's measures in a real browser: a session of parts
# (RPERF_INTERVAL=1, RPERF_ALLOC=64) of a loop whose one method keeps what
# it allocates; memory_test.js switches the page from time to allocated
# objects and to retained objects and checks what it then shows against
# rperf-analyze's own totals (read here), the Top table, the %class tags
# and the time strip of retained objects growing part after part.
. "$RPERF_TEST_SRC/tests/browser/lib.sh"

cat >grow.rb <<'RUBY'
# frozen_string_literal: true
$kept = []
def keep = 20.times { $kept << String.new("kept") }
def churn = 200.times { Array.new(2) }
deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 3.5
while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
  keep
  churn
  sleep 0.001
end
RUBY
RPERF_ALLOC=64 RPERF_INTERVAL=1 profiled "$WORK/s" "$RUBY" grow.rb || fail "grow.rb"
"$ANALYZE" convert --html -o "$WORK/memory.html" "$WORK/s" || fail "convert --html"

# total of a measure, and a method's cumulative weight in it
total_of() {
    "$ANALYZE" report --measure "$1" --top 1 "$WORK/s" | sed -n 's/^Total: \([0-9,.]*\).*/\1/p' | tr -d ,
}
cum_of() {
    "$ANALYZE" report --measure "$1" --top 1000 "$WORK/s" |
        awk -v m="$2" '/^ Cumulative:/ { c = 1; next } c && index($0, "  " m " (") { gsub(",", "", $1); print $1; exit }'
}
export MEMORY_PAGE="$WORK/memory.html"
export MEMORY_ALLOC_TOTAL=$(total_of alloc) MEMORY_RETAINED_TOTAL=$(total_of retained)
export MEMORY_ALLOC_CHURN=$(cum_of alloc Object#churn) MEMORY_RETAINED_KEEP=$(cum_of retained Object#keep)
export MEMORY_SCREENSHOT="${RPERF_TEST_ARTIFACTS:-$WORK}/memory.png"
note "allocated $MEMORY_ALLOC_TOTAL (churn $MEMORY_ALLOC_CHURN), retained $MEMORY_RETAINED_TOTAL (keep $MEMORY_RETAINED_KEEP)"
node "$browser_dir/memory_test.js"
if [ "${RPERF_UPDATE_SCREENSHOT:-}" = 1 ]; then
    cp "$MEMORY_SCREENSHOT" "$RPERF_TEST_SRC/profile/viewer/memory.png"
    note "kept profile/viewer/memory.png"
fi
