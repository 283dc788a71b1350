# RPERF_AGGREGATE=0 writes one raw_samples entry per sample, and the
# analyzer reads it like an aggregated profile.
. "$(dirname "$0")/lib.sh"

RPERF_AGGREGATE=0 profiled "$WORK/raw" "$RUBY" "$RPERF_TEST_SRC/examples/fib.rb" 32 >/dev/null
raw=$(only_profile "$WORK/raw")
check schema "$raw"
zcat "$raw" >raw.json
grep -q '"raw_samples":\[' raw.json || fail "no raw_samples key"
grep -q '"aggregated_samples"' raw.json && fail "raw profile also has aggregated_samples"
entries=$("$RUBY" -rjson -rzlib -e 'puts JSON.parse(Zlib::GzipReader.open(ARGV[0], &:read))["raw_samples"].size' "$raw")
stacks=$(check field "$raw" unique_stacks)
samples=$(check field "$raw" sampling_count)
note "raw entries: $entries, unique stacks: $stacks, sampling_count: $samples"
[ "$entries" -gt "$stacks" ] || fail "raw mode folded samples ($entries entries, $stacks stacks)"
"$ANALYZE" report "$WORK/raw" >report.txt
pct=$(flat_percent report.txt "Object#fibonacci")
note "Object#fibonacci flat from raw samples: $pct%"
at_least "$pct" 50 || fail "report from raw samples: fibonacci has $pct%"
