# The Ruby API's formats and files (tests/e2e/api/files.rb checks the
# program's view): here, what it wrote read back by rperf-analyze and go
# tool pprof, with the same totals — one implementation of each format,
# whichever program writes it.
. "$(dirname "$0")/lib.sh"
API="$RPERF_TEST_SRC/tests/e2e/api"

RPERF_ENABLED=0 profiled s "$RUBY" "$API/files.rb" >out.txt 2>err.txt || fail "files.rb failed: $(cat err.txt)"
grep -q "files.rb ok" out.txt || fail "files.rb did not finish: $(cat out.txt err.txt)"

total() { "$ANALYZE" report --top 0 "$1" 2>&1 | sed -n 's/^Total: \(.*\)ms.*/\1/p'; }
want=$(total p.json.gz)
[ -n "$want" ] || fail "rperf-analyze cannot read the API's p.json.gz: $("$ANALYZE" report p.json.gz 2>&1)"
for f in p.json p.pb.gz; do
    [ "$(total "$f")" = "$want" ] || fail "$f: total $(total "$f") ms, p.json.gz $want ms"
done
"$ANALYZE" report --tagfocus 'tenant=script' p.json.gz >tagged.txt || fail "report --tagfocus of the API's file"
grep -q "Object#hot" tagged.txt || fail "the label of the API's session is missing: $(cat tagged.txt)"
awk 'NF >= 2 { t += $NF } END { exit !(t > 0) }' p.collapsed || fail "p.collapsed has no weights"
grep -q "^Total: $want" p.txt || fail "p.txt: $(head -1 p.txt), expected Total: $want"
"$RUBY" -rjson -e 'd = JSON.parse(File.read("p.speedscope.json")); exit(d["profiles"].any? ? 0 : 1)' \
    || fail "p.speedscope.json has no profile"
if command -v go >/dev/null; then
    go tool pprof -top p.pb.gz >go.txt 2>&1 || fail "go tool pprof cannot read the API's p.pb.gz: $(cat go.txt)"
    grep -q "Object#hot" go.txt || fail "go tool pprof: no Object#hot in $(cat go.txt)"
fi
note "api files: json, json.gz, pprof, collapsed, text, html, speedscope; total $want ms in each"
