# rperf-analyze diff on two real sessions whose costs differ by a known
# amount: Object#grows burns 0.1 s of CPU in the base and 0.3 s in the
# target (truth: +200 ms), Object#same 0.2 s in both; one method exists
# only on each side. Then --normalize, --base/--target, -o, bad inputs.
. "$(dirname "$0")/lib.sh"

cat >prog.rb <<'RUBY'
require "cpu_burn"
def grows = burn_cpu(Float(ARGV[0]))
def same = burn_cpu(0.2)
def only_base = burn_cpu(0.05)
def only_target = burn_cpu(0.05)
grows
same
ARGV[1] == "base" ? only_base : only_target
RUBY
profiled "$WORK/base" "$RUBY" prog.rb 0.1 base
profiled "$WORK/target" "$RUBY" prog.rb 0.3 target

"$ANALYZE" diff --top 200 "$WORK/base" "$WORK/target" >diff.txt || fail "diff failed: $(cat diff.txt)"
# delta_of TABLE METHOD: the delta column of METHOD's row in TABLE
delta_of() {
    awk -v t="$1" -v m="$2" '/^ Flat/ { s = "flat" } /^ Cumulative/ { s = "cum" } s == t && $5 == m { print $1; exit }' diff.txt
}
change_of() {
    awk -v t="$1" -v m="$2" '/^ Flat/ { s = "flat" } /^ Cumulative/ { s = "cum" } s == t && $5 == m { print $4; exit }' diff.txt
}
grows=$(delta_of cum Object#grows)
same=$(delta_of cum Object#same)
note "Object#grows: $grows ms (truth +200), Object#same: $same ms (truth 0)"
awk -v g="$grows" 'BEGIN { exit !(g >= 160 && g <= 240) }' || fail "Object#grows changed by $grows ms, expected +200 ms within 20%"
awk -v s="$same" 'BEGIN { exit !(s >= -20 && s <= 20) }' || fail "Object#same changed by $same ms, expected about 0"
[ "$(change_of cum Object#only_base)" = gone ] || fail "Object#only_base is not marked gone: $(grep only_base diff.txt)"
[ "$(change_of cum Object#only_target)" = new ] || fail "Object#only_target is not marked new: $(grep only_target diff.txt)"
grep -q "^Change: *+" diff.txt || fail "no Change line: $(head -4 diff.txt)"
# rows are sorted by the size of the change
awk '/^ Cumulative/ { c = 1; next } c && $1 ~ /^[-+]/ { v = $1; gsub(/[+,]/, "", v); v = v + 0; if (v < 0) v = -v;
     if (seen && v > last + 0.05) bad = 1; last = v; seen = 1 } END { exit bad }' diff.txt \
    || fail "cumulative rows are not sorted by absolute change"

"$ANALYZE" diff --normalize "$WORK/base" "$WORK/target" >norm.txt
grep -q "delta %pt" norm.txt && grep -q "^Normalized:" norm.txt || fail "--normalize: $(head -8 norm.txt)"

# the same comparison given file by file, and into a file
set -- "$WORK"/base/*.json.gz
"$ANALYZE" diff --top 200 --base "$1" --target "$WORK/target" -o out.txt
cmp -s out.txt diff.txt || fail "--base/--target -o gave a different table: $(diff out.txt diff.txt | head)"

# the differential flame graph: the target's page with the base's totals
"$ANALYZE" diff --html -o diff.html "$WORK/base" "$WORK/target"
base_total=$(for f in "$WORK"/base/*.json.gz; do check total "$f"; done | awk '{ t += $1 } END { print t }')
grep -q "\"diff\":{\"base_total_ns\":$base_total,\"base_ns\":\[" diff.html \
    || fail "diff --html carries no base total $base_total: $(grep -o '"diff":{[^[]*' diff.html)"
grep -q '"Object#only_target"' diff.html || fail "diff --html is not the target's page (its data names no Object#only_target)"

# bad inputs: exit 1 naming the file; bad command lines: exit 2
rc=0; "$ANALYZE" diff "$WORK/base" missing.json.gz >/dev/null 2>err.txt || rc=$?
[ "$rc" = 1 ] && grep -q "missing.json.gz: No such file" err.txt || fail "missing target: exit $rc, $(cat err.txt)"
printf 'junk' >junk.json.gz
rc=0; "$ANALYZE" diff junk.json.gz "$WORK/target" >/dev/null 2>err.txt || rc=$?
[ "$rc" = 1 ] && grep -q "junk.json.gz: not valid JSON" err.txt || fail "junk base: exit $rc, $(cat err.txt)"
for args in "$WORK/base" "--bogus $WORK/base $WORK/target" "--base $WORK/base"; do
    rc=0
    # shellcheck disable=SC2086
    "$ANALYZE" diff $args >/dev/null 2>err.txt || rc=$?
    [ "$rc" = 2 ] && grep -q "^rperf-analyze: diff: " err.txt || fail "diff $args: exit $rc, $(cat err.txt)"
done

# A page's "(other)" (children too light to draw, here 150 ns under 1 s)
# stands in the base for what its parent's match holds outside the
# siblings shown: compared with itself, its base is its own 150 ns. (It
# was none, and every box summed above it — a library's run of frames in
# "my code" — showed a base short of its own time: viewer_browser's diff
# against itself failed so on Ruby 4.0.)
cat >light.json <<'JSON'
{"rperf_version":"0.9.0","mode":"cpu","frequency":1000,"aggregated_samples":[
 [[["a.rb","Object#heavy"],["a.rb","<main>"]], 1000000000, 1],
 [[["lib/x.rb","X#tiny1"],["a.rb","<main>"]], 100, 1],
 [[["lib/x.rb","X#tiny2"],["a.rb","<main>"]], 50, 1]
]}
JSON
"$ANALYZE" diff --html -o light.html light.json light.json || fail "diff --html of a profile with (other)"
"$RUBY" -rjson -e '
  data = JSON.parse(File.read(ARGV[0])[%r{<script type="application/json" id="rperf-data">(.*?)</script>}m, 1])
  other = data["frames"].size / 3 - 1
  nodes = data["nodes"]
  got = (0...nodes.size / 2).select { |i| nodes[2 * i + 1] == other }.map { |i| data["diff"]["base_ns"][i] }
  abort "the (other) node base: #{got.inspect}, expected [150]" unless got == [150]' light.html ||
    fail "a diff against itself gives (other) no base of its own"
note "diff --html against itself: (other) has its own 150 ns as its base"
