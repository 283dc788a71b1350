# Every output of rperf-analyze on a real multi-process wall-mode session:
# pprof read by `go tool pprof` (-raw, -top, -tagfocus, -tagroot),
# collapsed, text, merged json (read back), speedscope (the schema's
# required fields, one profile per process and thread), stat; binary to a
# terminal is refused.
. "$(dirname "$0")/lib.sh"
command -v go >/dev/null || fail "go is not installed (scripts/setup installs golang-go)"
export HOME=$WORK GOCACHE=$WORK/gocache GOFLAGS=-mod=mod GOTOOLCHAIN=local

cat >prog.rb <<'RUBY'
require "cpu_burn"
def nap = sleep(0.2)
def crunch = burn_cpu(0.05)
Process.wait(fork { crunch })
nap
crunch
Thread.new { crunch }.join
RUBY
RPERF_MODE=wall profiled "$WORK/s" "$RUBY" prog.rb
set -- "$WORK"/s/profile-*.json.gz
[ $# = 2 ] || fail "expected 2 profiles (root and fork child), found $#"
for f in "$@"; do
    [ "$(check field "$f" sampling_count)" -gt 0 ] || fail "$f has no samples"
done

# pprof
"$ANALYZE" convert --pprof -o p.pb.gz "$WORK/s"
[ "$(head -c 2 p.pb.gz | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "pprof output is not gzip"
go tool pprof -raw p.pb.gz >raw.txt 2>raw.err || fail "go tool pprof -raw: $(cat raw.err)"
grep -q "^PeriodType: wall nanoseconds$" raw.txt || fail "-raw: no wall period type"
grep -q "Comment: mode: wall" raw.txt || fail "-raw: no mode comment"
grep -q "thread_seq:\[1\]" raw.txt || fail "-raw: no thread_seq label"
go tool pprof -top p.pb.gz >top.txt 2>/dev/null || fail "go tool pprof -top failed"
grep -q "Object#crunch" top.txt || fail "-top lacks Object#crunch: $(head -20 top.txt)"
go tool pprof -top -tagfocus=%GVL=blocked p.pb.gz >blocked.txt 2>/dev/null || fail "-tagfocus failed"
grep -q "Kernel#sleep" blocked.txt || fail "-tagfocus=%GVL=blocked lacks Kernel#sleep"
grep -q "Object#crunch" blocked.txt && fail "-tagfocus=%GVL=blocked shows CPU work"
go tool pprof -traces -tagroot=%pid p.pb.gz >pid.txt 2>/dev/null || fail "-tagroot=%pid failed"
grep -q "%pid:" pid.txt || fail "-tagroot=%pid shows no %pid root"
note "pprof: $(grep -c '' raw.txt) lines of -raw, $(grep -c Kernel#sleep blocked.txt) sleep lines under %GVL=blocked"

# pprof read back (by content: a .pb.gz, and the same bytes uncompressed
# under a misleading name) gives the same report, stat breakdown and
# labels as the session it came from
"$ANALYZE" report "$WORK/s" >from_json.txt
"$ANALYZE" report p.pb.gz >from_pprof.txt
cmp -s from_json.txt from_pprof.txt || fail "report of the pprof file differs: $(diff from_json.txt from_pprof.txt | head)"
zcat p.pb.gz >plain.json
"$ANALYZE" report plain.json >from_plain.txt
cmp -s from_json.txt from_plain.txt || fail "report of uncompressed pprof differs"
diff <("$ANALYZE" stat "$WORK/s" | grep '\[Rperf\]') <("$ANALYZE" stat p.pb.gz | grep '\[Rperf\]') >/dev/null \
    || fail "stat's breakdown of the pprof file differs"
"$ANALYZE" convert --json p.pb.gz | "$RUBY" -rjson -e '
  sets = JSON.parse(STDIN.read)["label_sets"]
  exit(sets.include?({ "%GVL" => "blocked" }) && sets.any? { |s| s.key?("%pid") } ? 0 : 1)' \
    || fail "label sets lost through pprof"

# totals agree between formats
total=$(for f in "$WORK"/s/*.json.gz; do check total "$f"; done | awk '{ t += $1 } END { print t }')
"$ANALYZE" convert --collapsed "$WORK/s" >c.collapsed
grep -vqE '^.+ [0-9]+$' c.collapsed && fail "a collapsed line is malformed"
collapsed_total=$(awk '{ t += $NF } END { print t }' c.collapsed)
[ "$collapsed_total" = "$total" ] || fail "collapsed total $collapsed_total != profile total $total"
grep -q "^<main>;Object#nap;Kernel#sleep [0-9]*$" c.collapsed || fail "no bottom-to-leaf line for the sleep"
# options after the paths, as perf and pprof users type them
"$ANALYZE" convert --collapsed "$WORK/s" -o after.collapsed || fail "convert PATH -o FILE"
cmp -s c.collapsed after.collapsed || fail "convert with -o after the path wrote something else"
"$ANALYZE" report "$WORK/s" --top 3 >top3.txt || fail "report PATH --top 3"
[ "$(awk '/^ Flat:/ {f=1; next} f && NF {n++} /^ Cumulative:/ {exit} END {print n - 1}' top3.txt)" -le 3 ] ||
    fail "report PATH --top 3 did not take --top: $(cat top3.txt)"

# text = report; -o with .txt picks the text format
"$ANALYZE" convert --text "$WORK/s" >t1.txt
"$ANALYZE" report "$WORK/s" >t2.txt
cmp -s t1.txt t2.txt || fail "convert --text differs from report"
"$ANALYZE" convert -o t3.txt "$WORK/s"
cmp -s t1.txt t3.txt || fail "-o x.txt is not the text report"

# merged json, read back: same report; .json.gz compressed, .json plain
"$ANALYZE" convert -o merged.json.gz "$WORK/s"
"$ANALYZE" convert --json -o merged.json "$WORK/s"
[ "$(head -c 1 merged.json)" = "{" ] || fail ".json is not plain JSON"
"$ANALYZE" report merged.json.gz >t4.txt
cmp -s t2.txt t4.txt || fail "report of the merged json differs: $(diff t2.txt t4.txt | head)"
check schema merged.json.gz >/dev/null || fail "merged json fails the schema check"
[ "$(check field merged.json.gz process_count)" = 2 ] || fail "merged json lacks process_count 2"

# speedscope
"$ANALYZE" convert -o p.speedscope.json "$WORK/s"
"$RUBY" -rjson - p.speedscope.json "$total" >speedscope.txt <<'RUBY' || fail "speedscope: $(cat speedscope.txt)"
doc = JSON.parse(File.read(ARGV[0]))
bad = ->(msg) { puts msg; exit 1 }
doc["$schema"] == "https://www.speedscope.app/file-format-schema.json" or bad.("no $schema")
frames = doc.dig("shared", "frames") or bad.("no shared.frames")
frames.all? { |f| f["name"].is_a?(String) && f["file"].is_a?(String) } or bad.("a frame without name/file")
profiles = doc["profiles"]
names = profiles.map { |pr| pr["name"] }
profiles.each do |pr|
  pr["type"] == "sampled" && pr["unit"] == "nanoseconds" or bad.("#{pr["name"]}: type/unit #{pr["type"]}/#{pr["unit"]}")
  pr["samples"].size == pr["weights"].size or bad.("#{pr["name"]}: #{pr["samples"].size} samples, #{pr["weights"].size} weights")
  pr["samples"].flatten.all? { |i| i.is_a?(Integer) && i >= 0 && i < frames.size } or bad.("#{pr["name"]}: frame index out of range")
  pr["startValue"] == 0 && pr["endValue"] == pr["weights"].sum or bad.("#{pr["name"]}: endValue #{pr["endValue"]}")
  pr["samples"].each do |s|
    leafs = s.map { |i| frames[i]["name"] }
    leafs.index("Kernel#sleep").then { |k| k.nil? || k == s.size - 1 } or bad.("#{pr["name"]}: stack not root first: #{leafs}")
  end
end
names.uniq.size == names.size or bad.("profile names repeat: #{names}")
pids = names.map { |n| n[/pid (\d+)/, 1] }.uniq
threads = names.map { |n| n[/thread (\d+)/, 1] }
pids.size == 2 && threads.sort == %w[1 1 2] or bad.("expected 2 processes and threads 1, 1, 2: #{names}")
sum = profiles.sum { |pr| pr["weights"].sum }
sum == Integer(ARGV[1]) or bad.("weights sum to #{sum}, the session to #{ARGV[1]}")
puts names.join(", ")
RUBY
note "speedscope profiles: $(cat speedscope.txt)"

# label filters (--tagfocus, --tagignore) and report --by: the blocked
# time alone, the rest, and the time per process add up as stat says
ms_of() { sed -n 's/^Total: \([0-9.]*\)ms.*/\1/p' "$1"; }
"$ANALYZE" report "$WORK/s" >all.txt
blocked=$("$ANALYZE" stat "$WORK/s" | awk '/GVL blocked/ { gsub(",", "", $1); print $1 }')
"$ANALYZE" report --tagfocus %GVL=blocked "$WORK/s" >focus.txt
"$ANALYZE" report --tagignore %GVL=blocked "$WORK/s" >ignore.txt
note "all $(ms_of all.txt) ms, --tagfocus %GVL=blocked $(ms_of focus.txt) ms (stat: $blocked), --tagignore $(ms_of ignore.txt) ms"
awk -v f="$(ms_of focus.txt)" -v b="$blocked" 'BEGIN { exit !(f - b < 0.06 && b - f < 0.06) }' \
    || fail "--tagfocus %GVL=blocked shows $(ms_of focus.txt) ms, stat's blocked time is $blocked ms"
awk -v f="$(ms_of focus.txt)" -v i="$(ms_of ignore.txt)" -v a="$(ms_of all.txt)" 'BEGIN { d = f + i - a; exit !(d < 0.11 && d > -0.11) }' \
    || fail "focus + ignore != all"
grep -q "Kernel#sleep" focus.txt && ! grep -q "Object#crunch" focus.txt || fail "--tagfocus kept the wrong methods: $(head -8 focus.txt)"
"$ANALYZE" report --tagfocus thread_seq=2 "$WORK/s" >thread2.txt
grep -q "Object#crunch" thread2.txt && ! grep -q "Object#nap" thread2.txt || fail "--tagfocus thread_seq=2: $(head -8 thread2.txt)"
"$ANALYZE" stat --tagfocus %GVL=blocked "$WORK/s" >statf.txt
grep -q "100.0%  \[Rperf\] GVL blocked" statf.txt || fail "stat --tagfocus: $(grep Rperf statf.txt)"
"$ANALYZE" convert --pprof --tagignore %GVL=blocked -o ignore.pb.gz "$WORK/s"
go tool pprof -top ignore.pb.gz >ignore_top.txt 2>/dev/null || fail "go tool pprof on a filtered file"
grep -q "Kernel#sleep" ignore_top.txt && fail "--tagignore %GVL=blocked kept the sleep in pprof"
"$ANALYZE" report --by %pid "$WORK/s" >by.txt
[ "$(grep -c ' ms ' by.txt)" = 2 ] || fail "report --by %pid: $(cat by.txt)"
by_sum=$(awk '/ ms / { gsub(",", "", $1); t += $1 } END { printf "%.1f", t }' by.txt)
awk -v s="$by_sum" -v a="$(ms_of all.txt)" 'BEGIN { exit !(s - a < 0.11 && a - s < 0.11) }' || fail "--by %pid rows sum to $by_sum, not $(ms_of all.txt)"
grep -q "(not set)" by.txt || fail "--by %pid: the root process's samples (no %pid) are not '(not set)'"
rc=0; "$ANALYZE" report --tagfocus '%GVL=(' "$WORK/s" >/dev/null 2>err.txt || rc=$?
[ "$rc" = 2 ] && grep -q "^rperf-analyze: --tagfocus expects KEY=REGEX, got '%GVL=('" err.txt || fail "bad regex: exit $rc, $(cat err.txt)"

# stat
"$ANALYZE" stat "$WORK/s" >stat.txt
grep -q "^ Performance stats for '.*prog.rb':$" stat.txt || fail "stat header"
grep -q "\[Rperf\] Ruby processes profiled$" stat.txt || fail "stat: no process count"
grep -q "ms .*%  \[Rperf\] GVL blocked (I/O, sleep)$" stat.txt || fail "stat: no GVL blocked line"
grep -qE "^  [0-9]+ samples / [0-9]+ triggers, [0-9.]+% profiler overhead \(sampling [0-9.]+%, the agent's threads [0-9.]+% CPU\)$" \
    stat.txt || fail "stat footer: $(tail -2 stat.txt)"
"$ANALYZE" stat --report "$WORK/s" >statr.txt
grep -q "^ Flat:$" statr.txt && grep -q "^ Cumulative:$" statr.txt || fail "stat --report lacks tables"

# binary output to a terminal is refused; text to a terminal is fine
script -qec "$ANALYZE convert --pprof $WORK/s" /dev/null >tty.txt 2>&1 && fail "pprof to a terminal was not refused"
grep -q "refusing to write binary pprof data to a terminal" tty.txt || fail "terminal refusal: $(cat tty.txt)"
script -qec "$ANALYZE convert --collapsed $WORK/s" /dev/null >/dev/null 2>&1 || fail "collapsed to a terminal failed"
rc=0; "$ANALYZE" convert "$WORK/s" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "convert without a format: exit $rc"
rc=0; "$ANALYZE" convert --format svg "$WORK/s" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "unknown format: exit $rc"
