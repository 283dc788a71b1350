# Allocation sampling (RPERF_ALLOC, rperf record --alloc, Rperf.start(alloc:)):
# shares of known truth at the default rate in the text report and in
# go tool pprof -sample_index=alloc_objects; retained objects with
# GC.compact in the middle (memory/retained.rb); what the hooks must not
# change (the program's own allocation count); a bad RPERF_ALLOC; the Ruby
# API and a fork child.
. "$(dirname "$0")/lib.sh"
MEM="$RPERF_TEST_SRC/tests/e2e/memory"
RPERF="$RPERF_TEST_RPERF"
export RPERF_AGENT=$RPERF_TEST_AGENT
preload_first=${RPERF_TEST_PRELOAD_FIRST:-}

# cum_of FILE METHOD: the cumulative weight of METHOD in a text report.
cum_of() {
    awk -v m="$2" '/^ Cumulative:/ { c = 1; next } c && ($0 " ") ~ "  " m " " { gsub(",", "", $1); print $1; exit }' "$1"
}

# share_ok NAME GOT TRUTH SUM_GOT SUM_TRUTH: GOT/SUM_GOT within 3 points of TRUTH/SUM_TRUTH.
share_ok() {
    awk -v g="$2" -v t="$3" -v sg="$4" -v st="$5" -v n="$1" 'BEGIN {
        gs = sg > 0 ? 100 * g / sg : 0; ts = st > 0 ? 100 * t / st : 0
        printf "# %s: %.1f%% of the three methods'"'"' allocations (truth %.1f%%)\n", n, gs, ts
        exit !(gs >= ts - 3 && gs <= ts + 3) }'
}

# --- shares at the default rate, through the rperf command -----------------
LD_PRELOAD=$preload_first "$RPERF" record --alloc -o shares.json.gz "$RUBY" "$MEM/shares.rb" truth.txt \
    >rec.out 2>rec.err || fail "rperf record --alloc: $(cat rec.err)"
[ "$(check field shares.json.gz alloc_rate)" = 128 ] || fail "alloc_rate is not the default 128: $(check field shares.json.gz alloc_rate)"
"$ANALYZE" report --measure alloc --top 1000 shares.json.gz >alloc.txt 2>&1 || fail "report --measure alloc: $(cat alloc.txt)"
grep -q "^Total: .* allocated objects (1 in 128 allocations sampled)" alloc.txt || fail "report header: $(head -3 alloc.txt)"

methods="Object#make_strings Object#make_arrays Object#burn"
check_shares() { # FILE HOW
    local got_sum=0 truth_sum=0 m
    for m in $methods; do
        got_sum=$((got_sum + $(cum_of "$1" "$m" || true) + 0))
        truth_sum=$((truth_sum + $(awk -v m="$m" '$1 == m { print $2 }' truth.txt)))
    done
    [ "$got_sum" -gt 0 ] || fail "$2: none of $methods found: $(head -20 "$1")"
    for m in $methods; do
        local got truth
        got=$(cum_of "$1" "$m" || true)
        truth=$(awk -v m="$m" '$1 == m { print $2 }' truth.txt)
        share_ok "$2 $m" "${got:-0}" "$truth" "$got_sum" "$truth_sum" \
            || fail "$2: $m has ${got:-0} of $got_sum sampled allocations, truth $truth of $truth_sum (±3 points)"
    done
}
check_shares alloc.txt "report --measure alloc"

# pprof: Go's heap-profile sample types; go tool pprof -sample_index picks them.
"$ANALYZE" convert --pprof -o shares.pb.gz shares.json.gz || fail "convert --pprof"
go tool pprof -sample_index=alloc_objects -top -cum -nodecount=1000 shares.pb.gz >go.txt 2>go.err \
    || fail "go tool pprof -sample_index=alloc_objects: $(cat go.err)"
grep -q "Type: alloc_objects" go.txt || fail "pprof type: $(head -12 go.txt)"
# rows: flat flat% sum% cum cum% name → as the text report's "cum name"
awk '$5 ~ /%$/ && $6 != "" { name = $6; for (i = 7; i <= NF; i++) name = name " " $i; print "  " $4 " x  " name " " }' go.txt |
    sed '1i\ Cumulative:' >go_cum.txt
check_shares go_cum.txt "go tool pprof"
for t in inuse_objects inuse_space; do
    go tool pprof -sample_index=$t -top shares.pb.gz >go_$t.txt 2>&1 || fail "go tool pprof -sample_index=$t: $(cat go_$t.txt)"
done

# classes: the strings' and the arrays' own labels
"$ANALYZE" report --measure alloc --by %class shares.json.gz >class.txt || fail "report --by %class"
grep -q " String$" class.txt && grep -q " Array$" class.txt || fail "no String/Array classes: $(cat class.txt)"
strings=$("$ANALYZE" report --measure alloc --tagfocus %class=^String$ --top 1000 shares.json.gz | awk '/^ Cumulative:/ {c=1} c && /Object#make_arrays/ && !done {print; done=1}')
[ -z "$strings" ] || fail "--tagfocus %class=String kept make_arrays: $strings"
"$ANALYZE" stat shares.json.gz >stat.txt || fail "stat"
grep -q "\[Rperf\] allocated objects (1 in 128 sampled" stat.txt || fail "stat lacks the allocations line: $(cat stat.txt)"
"$ANALYZE" stat --measure alloc shares.json.gz >stat_alloc.txt || fail "stat --measure alloc"
grep -q "\[Rperf\]   String" stat_alloc.txt || fail "stat --measure alloc lacks the classes: $(cat stat_alloc.txt)"
"$ANALYZE" convert --collapsed --measure alloc -o c.txt shares.json.gz || fail "collapsed --measure alloc"
grep -q "Object#make_strings" c.txt || fail "collapsed --measure alloc: $(head -3 c.txt)"
"$ANALYZE" convert --speedscope --measure retained-bytes -o ss.json shares.json.gz || fail "speedscope --measure retained-bytes"
grep -q '"unit":"bytes"' ss.json || fail "speedscope retained bytes: $(head -c 300 ss.json)"
"$ANALYZE" diff --measure alloc shares.json.gz shares.json.gz >diff.txt || fail "diff --measure alloc"
grep -q "^Base: .* allocated objects" diff.txt || fail "diff header: $(head -3 diff.txt)"

# A time profile asked for a memory measure: one clear line.
profiled plain "$RUBY" -e '1'
rc=0; "$ANALYZE" report --measure alloc plain >noalloc.txt 2>&1 || rc=$?
[ "$rc" != 0 ] && grep -q "has no allocation samples (record with RPERF_ALLOC=N" noalloc.txt || fail "no-memory profile: rc $rc $(cat noalloc.txt)"

# --- retained objects, across GC.compact and auto-compaction --------------------
for variant in compact auto; do
rm -rf ret
if [ "$variant" = auto ]; then export RETAINED_AUTO_COMPACT=1; fi
RPERF_ALLOC=128 profiled ret "$RUBY" "$MEM/retained.rb" ret_truth.txt || fail "retained.rb ($variant) failed"
unset RETAINED_AUTO_COMPACT
kept=$(awk '$1 == "kept" { print $2 }' ret_truth.txt)
moved=$(awk '$1 == "moved" { print $2 }' ret_truth.txt)
[ "$moved" -gt 1000 ] || fail "$variant: the compaction moved only $moved strings: the test proves nothing"
"$ANALYZE" report --measure retained --top 1000 ret >ret.txt || fail "report --measure retained"
keep=$(cum_of ret.txt "Object#keep_some")
main=$(cum_of ret.txt "<main> [(].*retained[.]rb[)]" || true)
while_=$(cum_of ret.txt "Object#keep_a_while" || true)
note "retained ($variant): keep_some ${keep:-0} of <main>'s ${main:-0} (truth $kept, $moved strings moved); keep_a_while ${while_:-0}"
[ -n "$keep" ] && [ -n "$main" ] || fail "retained report lacks keep_some/<main>: $(head -30 ret.txt)"
awk -v k="$keep" -v m="$main" 'BEGIN { exit !(k >= 0.9 * m) }' || fail "keep_some has $keep of $main retained (< 90%)"
awk -v k="$keep" -v t="$kept" 'BEGIN { exit !(k >= 0.85 * t && k <= 1.15 * t) }' \
    || fail "keep_some: $keep retained objects estimated, $kept alive (±15%)"
[ -z "$while_" ] || fail "keep_a_while's objects were freed, yet $while_ are listed"
bytes=$("$ANALYZE" report --measure retained-bytes --top 1 ret | sed -n 's/^Total: \([0-9,]*\) retained bytes.*/\1/p' | tr -d ,)
[ "${bytes:-0}" -gt "$((kept * 40))" ] || fail "retained bytes ${bytes:-none} for $kept strings"
done

# The cap on followed objects: beyond it, counted and said.
RPERF_ALLOC=128 RPERF_ALLOC_FOLLOW=10 profiled capped "$RUBY" "$MEM/retained.rb" cap_truth.txt || fail "retained.rb (capped) failed"
"$ANALYZE" stat capped >cap.txt || fail "stat of the capped profile"
grep -q "NOTE: [0-9]* sampled objects were not followed (RPERF_ALLOC_FOLLOW reached, or GCs run by another Ractor)" cap.txt || fail "the cap is not said: $(cat cap.txt)"
capped=$("$ANALYZE" report --measure retained --top 1 capped | sed -n 's/^Total: \([0-9,]*\) retained.*/\1/p' | tr -d ,)
[ "${capped:-0}" -le $((10 * 128)) ] || fail "$capped retained objects with at most 10 followed (1 in 128)"

# --- what the hooks must not change -------------------------------------------
count='a = GC.stat(:total_allocated_objects); 10_000.times { String.new("x") }; b = GC.stat(:total_allocated_objects); print b - a'
plain_count=$("$RUBY" -e "$count")
RPERF_ALLOC=1 profiled every "$RUBY" -e "$count" >every.txt || fail "RPERF_ALLOC=1 run failed"
[ "$(cat every.txt)" = "$plain_count" ] || fail "the program counted $(cat every.txt) allocations with every one sampled, $plain_count without the agent"

# --- bad values ------------------------------------------------------------------
for bad in abc -3 1.5 200000000; do
    rc=0; LD_PRELOAD="$PRELOAD" RPERF_ALLOC=$bad RPERF_SESSION_DIR=bad "$RUBY" -e 'print :ran' >bad.out 2>bad.err || rc=$?
    [ "$rc" = 0 ] && [ "$(cat bad.out)" = ran ] || fail "RPERF_ALLOC=$bad changed the program: rc $rc, $(cat bad.out)"
    grep -q "invalid RPERF_ALLOC=\"$bad\": expected a positive integer N" bad.err || fail "RPERF_ALLOC=$bad: $(cat bad.err)"
    [ "$(wc -l <bad.err)" = 1 ] || fail "RPERF_ALLOC=$bad: more than one line: $(cat bad.err)"
done
rc=0; LD_PRELOAD=$preload_first "$RPERF" record --alloc=x -o x.json.gz "$RUBY" -e 1 2>x.err || rc=$?
[ "$rc" = 1 ] && grep -q -- "--alloc must be a positive integer N" x.err || fail "rperf --alloc=x: rc $rc $(cat x.err)"

# --- the Ruby API, and a fork child ------------------------------------------
cat >api.rb <<'RUBY'
require "rperf"
def session_work = 200_000.times { Array.new(1) }
def child_work = 100_000.times { Hash.new }
Rperf.start(alloc: 16, output: "api.json.gz") do
  session_work
end
begin
  Rperf.start(alloc: -1)
rescue ArgumentError => e
  puts e.message
end
pid = fork { child_work }
Process.wait(pid)
RUBY
RPERF_ENABLED=0 profiled api "$RUBY" api.rb >api.out 2>api.err || fail "api.rb: $(cat api.err)"
grep -q "alloc must be a positive integer" api.out || fail "Rperf.start(alloc: -1) did not raise: $(cat api.out)"
[ "$(check field api.json.gz alloc_rate)" = 16 ] || fail "Rperf.start(alloc: 16) wrote alloc_rate $(check field api.json.gz alloc_rate)"
"$ANALYZE" report --measure alloc --top 1000 api.json.gz >api.txt || fail "report of the API's file"
got=$(cum_of api.txt "Object#session_work")
awk -v g="${got:-0}" 'BEGIN { exit !(g >= 170000 && g <= 230000) }' || fail "session_work: ${got:-none} objects, truth 200,000 (±15%)"

RPERF_ALLOC=64 profiled forked "$RUBY" -e 'def child_work = 200_000.times { Hash.new }
Process.wait(fork { child_work })
system(RbConfig.ruby, "-e", "def spawned_work = 200_000.times { Object.new }; spawned_work")' || fail "fork program failed"
[ "$(ls forked/profile-*.json.gz | wc -l)" = 3 ] || fail "expected 3 profiles (parent, fork child, spawned child)"
"$ANALYZE" report --measure alloc --top 1000 forked >spawn.txt || fail "report of the children"
got=$(cum_of spawn.txt "Object#spawned_work")
awk -v g="${got:-0}" 'BEGIN { exit !(g >= 170000 && g <= 230000) }' || fail "the spawned child's spawned_work: ${got:-none} objects, truth 200,000 (±15%)"
"$ANALYZE" report --measure alloc --top 1000 --tagfocus %pid=. forked >fork.txt || fail "report of the child"
got=$(cum_of fork.txt "Object#child_work")
awk -v g="${got:-0}" 'BEGIN { exit !(g >= 170000 && g <= 230000) }' || fail "the child's child_work: ${got:-none} objects, truth 200,000 (±15%)"

# --- threads and fibers: each allocation on its own thread and stack -------
cat >threads.rb <<'RUBY'
def in_thread_a = 200_000.times { Array.new(1) }
def in_thread_b = 100_000.times { Array.new(1) }
def in_fiber = 100_000.times { Array.new(1) }
[Thread.new { in_thread_a }, Thread.new { in_thread_b }].each(&:join)
Fiber.new { in_fiber }.resume
RUBY
RPERF_ALLOC=32 profiled thr "$RUBY" threads.rb || fail "threads.rb failed"
"$ANALYZE" report --measure alloc --top 1000 thr >thr.txt || fail "report of threads.rb"
for m in in_thread_a:200000 in_thread_b:100000 in_fiber:100000; do
    got=$(cum_of thr.txt "Object#${m%:*}")
    awk -v g="${got:-0}" -v t="${m#*:}" 'BEGIN { exit !(g >= 0.85 * t && g <= 1.15 * t) }' \
        || fail "Object#${m%:*}: ${got:-none} objects, truth ${m#*:} (±15%)"
done
"$ANALYZE" report --measure alloc --by thread_seq thr >seq.txt || fail "report --by thread_seq"
seqs=$(awk '/^ By thread_seq:/ { b = 1; next } b && NF { n++ } END { print n + 0 }' seq.txt)
[ "$seqs" -ge 3 ] || fail "the main thread's and both threads' allocations should be apart by thread_seq: $(cat seq.txt)"

# --- leak finding: parts of a server-like loop, one endpoint leaking ---------
cat >leak.rb <<'RUBY'
# frozen_string_literal: true
$cache = []
def fast_endpoint = 50.times { String.new("tmp") }
def leaky_endpoint = 5.times { $cache << String.new("leak") }
def json_endpoint = 20.times { { "a" => [1, 2] } }
deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 4.5
while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
  fast_endpoint
  leaky_endpoint
  json_endpoint
  sleep 0.0005
end
RUBY
RPERF_ALLOC=128 RPERF_INTERVAL=1 profiled leak "$RUBY" leak.rb || fail "leak.rb failed"
"$ANALYZE" growth leak >growth.txt 2>&1 || fail "growth: $(cat growth.txt)"
note "$(sed -n 3,4p growth.txt)"
top=$(awk 'f { sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, ""); print; exit } /objects\/min/ { f = 1 }' growth.txt)
[ "$top" = "Object#leaky_endpoint (leak.rb)" ] || fail "growth's top site is '$top': $(cat growth.txt)"
"$ANALYZE" growth --json --top 1 leak >growth.json || fail "growth --json"
"$RUBY" -rjson -e 'r = JSON.parse(File.read("growth.json")); exit(r.size == 1 && r[0]["site"] =~ /leaky_endpoint/ && r[0]["last"] > r[0]["first"] ? 0 : 1)' \
    || fail "growth --json: $(cat growth.json)"
rc=0; "$ANALYZE" growth plain >nogrowth.txt 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "has no allocation samples" nogrowth.txt || fail "growth of a time profile: rc $rc $(cat nogrowth.txt)"
note "leak finding ok"

# RPERF_ALLOC=window: the hook only in 10 ms windows about every second,
# the samples scaled by Ruby's own count of allocations. A 75/25 split of
# allocations (GC.stat deltas around each method: the truth) for 4 s.
cat >split.rb <<'RUBY'
def make_a(n) = n.times { |i| "a#{i}" }
def make_b(n) = n.times { |i| [i] }
truth = Hash.new(0)
t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
while Process.clock_gettime(Process::CLOCK_MONOTONIC) - t < 4
  s = GC.stat(:total_allocated_objects); make_a(3_000); truth[:a] += GC.stat(:total_allocated_objects) - s
  s = GC.stat(:total_allocated_objects); make_b(2_000); truth[:b] += GC.stat(:total_allocated_objects) - s
end
puts "#{truth[:a]} #{truth[:b]}"
RUBY
read -r truth_a truth_b < <(RPERF_ALLOC=window RPERF_VERBOSE=1 profiled window "$RUBY" split.rb 2>window.err)
# Its windows saw about 1% of the allocations (10 ms every 0.5 to 1.5 s),
# as RPERF_VERBOSE says: the hook's cost is paid on those only.
seen=$(sed -n 's/.*the windows saw \([0-9.]*\)% of the allocations.*/\1/p' window.err)
note "window mode: the windows saw ${seen:-?}% of the allocations"
awk -v s="${seen:-0}" 'BEGIN { exit !(s >= 0.1 && s <= 5) }' \
    || fail "window mode: its windows saw '${seen:-nothing said}'% of the allocations, not about 1%: $(grep 'allocation sampling' window.err)"
"$ANALYZE" report --measure alloc window >window.txt
grep -q "^Total: .* allocated objects (1 in 16 allocations sampled in 10 ms windows every ~1000 ms, scaled to the whole run)" window.txt \
    || fail "the window mode is not said: $(head -1 window.txt)"
flat_objects() { awk -v m="$1" '/^ Flat:/ { f = 1 } f && $3 == m { gsub(",", "", $1); print $1; exit }' window.txt; }
got_a=$(flat_objects Object#make_a)
got_b=$(flat_objects Object#make_b)
note "window mode: make_a ${got_a:-0}, make_b ${got_b:-0} objects estimated; truth $truth_a and $truth_b"
awk -v a="${got_a:-0}" -v b="${got_b:-0}" -v ta="$truth_a" -v tb="$truth_b" 'BEGIN {
    share = 100 * a / (a + b + 1e-9); truth = 100 * ta / (ta + tb)
    d = share - truth; if (d < 0) d = -d
    exit !(d <= 3 && a + b >= 0.85 * (ta + tb) && a + b <= 1.15 * (ta + tb)) }' \
    || fail "window mode: make_a ${got_a:-0} / make_b ${got_b:-0} objects, truth $truth_a / $truth_b (share more than 3 points off, or the total more than 15%)"
