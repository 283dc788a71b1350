# Labels across RPERF_INTERVAL parts: the label store is compacted between
# parts (agent/sampling/labels.h), so a server labelling each request with its id
# does not grow it without end. The program (tests/e2e/api/label_parts.rb)
# checks its own labels after each boundary; here, each part holds only
# the sets of its own interval, and the merged parts keep every label.
. "$(dirname "$0")/lib.sh"

RPERF_INTERVAL=1 profiled s "$RUBY" "$RPERF_TEST_SRC/tests/e2e/api/label_parts.rb" >out.txt 2>err.txt \
    || fail "label_parts.rb: $(cat err.txt out.txt)"
requests=$(sed -n 's/^label_parts.rb ok: \([0-9]*\) requests$/\1/p' out.txt)
[ -n "$requests" ] || fail "label_parts.rb did not finish: $(cat out.txt err.txt)"
parts=(s/profile-*.json.gz)
[ "${#parts[@]}" -ge 3 ] || fail "${#parts[@]} parts for a 2.7 s run at 1 s intervals"

# Every part holds fewer sets than the requests, plus a few, and no part
# holds them all: a part's sets are those its samples use.
most=0
for f in "${parts[@]}"; do
    "$RUBY" "$CHECK" schema "$f" >/dev/null || fail "$f is not valid"
    sets=$("$RUBY" -rjson -rzlib -e 'puts JSON.parse(Zlib::GzipReader.open(ARGV[0], &:read))["label_sets"].size' "$f")
    [ "$sets" -gt "$most" ] && most=$sets
done
[ "$most" -lt "$requests" ] || fail "a part holds $most label sets for $requests requests in all"

# Merged: service=api on all the labelled time, the tail with its labels.
"$ANALYZE" convert --json -o merged.json.gz s || fail "merge"
ms() { awk -v ns="$1" 'BEGIN { printf "%.1f", ns / 1e6 }'; }
tail_ms=$(ms "$("$RUBY" "$CHECK" labeled merged.json.gz Object#tail phase=tail)")
awk -v g="$tail_ms" 'BEGIN { exit !(g >= 180 && g <= 220) }' || fail "phase=tail: $tail_ms ms, truth 200"
api_ms=$(ms "$("$RUBY" "$CHECK" labeled merged.json.gz Object#handle_request service=api)")
all_ms=$(ms "$("$RUBY" "$CHECK" weight merged.json.gz Object#handle_request)")
[ "$api_ms" = "$all_ms" ] || fail "service=api on $api_ms of $all_ms ms of requests"
bg_ms=$(ms "$("$RUBY" "$CHECK" labeled merged.json.gz Object#background worker=bg)")
all_bg_ms=$(ms "$("$RUBY" "$CHECK" weight merged.json.gz Object#background)")
[ "$bg_ms" = "$all_bg_ms" ] || fail "worker=bg on $bg_ms of $all_bg_ms ms of the worker thread"
"$ANALYZE" report --by request s >by.txt || fail "report --by request"
values=$(awk '$NF ~ /^[0-9]+$/' by.txt | wc -l)
[ "$values" -ge $((requests * 9 / 10)) ] || fail "report --by request lists $values of $requests request ids"
note "$requests requests in ${#parts[@]} parts; at most $most label sets in a part; phase=tail $tail_ms ms (truth 200); worker=bg on all $bg_ms ms of its thread; request ids in report --by: $values"
