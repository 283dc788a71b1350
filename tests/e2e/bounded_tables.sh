# Nothing the agent keeps grows with the program's data, nor keeps the
# program's objects alive:
# - 50,000 requests of 50,000 distinct names, each with a label of its own
#   (a server's slugs, digests and scanners' random paths): every request
#   counted, at most RP_ENDPOINTS_MAX endpoints kept, the names past them
#   said (about 49,000), the process's memory no more than 64 MB above the
#   same program's with 500 names;
# - 20,000 anonymous classes made and dropped under RPERF_ALLOC=1: as many
#   classes alive after GC as without the agent, also after GC.compact
#   (the classes of sampled objects are kept by name); Structs' allocations
#   named after their ancestor, with no address in any name;
# - 50,000 evals under distinct 4 KB file names (RPERF_ALLOC=1): the frame
#   names stop at their byte bound (32 MB of text) and say so once; the
#   process's memory at the end stays within 80 MB of the same program's
#   without the agent (it grew 15 -> 224 MB before the bound);
# - 300 requests held open on fibers (streaming): the samples they keep
#   stop at 16 MB for the process, said once (below).
. "$(dirname "$0")/lib.sh"

cat >names.rb <<'RUBY'
require "rperf"
names = Integer(ARGV[0])
50_000.times do |i|
  Rperf.request("GET /items/#{i % names}") { Rperf.label(item: i.to_s) { (1..20).sum } }
end
GC.start
puts File.read("/proc/self/status")[/VmRSS:\s*(\d+)/, 1]
RUBY
rss=()
for names in 500 50000; do
    rss+=("$(profiled "n$names" "$RUBY" names.rb "$names")") || fail "$names names: the program failed"
    "$ANALYZE" requests --json "n$names" >req.json 2>req.err || fail "$names names: $(cat req.err)"
    read -r endpoints total <<<"$("$RUBY" -rjson -e 'e = JSON.parse(File.read("req.json"))
        print e.size, " ", e.sum { |x| x["count"] }')"
    [ "$total" = 50000 ] || fail "$names names: $total requests counted of 50,000"
    [ "$endpoints" -le 1000 ] || fail "$names names: $endpoints endpoints kept"
    note "$names names: $endpoints endpoints, all 50,000 requests counted, VmRSS ${rss[-1]} kB"
done
"$ANALYZE" requests n50000 >req.txt
folded=$(grep -o 'about [0-9,]* more endpoint names' req.txt | tr -dc 0-9)
note "50,000 names: $(grep 'more endpoint names' req.txt | sed 's/^ *//')"
[ -n "$folded" ] && [ "$folded" -ge 44000 ] && [ "$folded" -le 54000 ] ||
    fail "the folded names said: '${folded:-none}', expected about 49,000"
growth=$(( (rss[1] - rss[0]) / 1024 ))
note "memory: ${growth} MB more with 50,000 names than with 500"
[ "$growth" -le 64 ] || fail "50,000 names take $growth MB more than 500"

cat >classes.rb <<'RUBY'
kind, how = ARGV
20_000.times do |i|
  c = kind == "struct" ? Struct.new(:a, :b) : Class.new { def initialize = @a = 1 }
  c.new
end
GC.start; GC.start
GC.compact if how == "compact"
GC.start
puts ObjectSpace.each_object(Class).count
RUBY
for how in plain compact; do
    bare=$("$RUBY" classes.rb class "$how")
    with=$(RPERF_ALLOC=1 profiled "c-$how" "$RUBY" classes.rb class "$how")
    note "$how: $bare classes alive without the agent, $with with RPERF_ALLOC=1"
    [ $((with - bare)) -le 300 ] && [ $((bare - with)) -le 300 ] ||
        fail "$how: $with classes alive with the agent, $bare without"
done
RPERF_ALLOC=1 profiled structs "$RUBY" classes.rb struct plain >/dev/null
"$ANALYZE" report --measure alloc --by '%class' structs >classes.txt 2>&1 || fail "report by class: $(cat classes.txt)"
! grep -q '0x[0-9a-f]\{6,\}' classes.txt || fail "an address in a class name: $(grep -m1 '0x' classes.txt)"
grep -q "anonymous subclass of Struct" classes.txt ||
    fail "the Structs' allocations are not named after Struct: $(head -n 12 classes.txt)"
note "classes: $(grep -m1 'anonymous subclass of Struct' classes.txt | sed 's/^ *//')"

# Label sets made session after session (70 sessions of the API, 1,000
# distinct labels each: 70,000 sets, past the store's bound of 65,536):
# the store is compacted as a session ends, so labels keep their values
# (before, the last ones read "(other: past the label bound)").
cat >labels_many.rb <<'RUBY'
require "rperf"
k = 0
70.times do
  Rperf.start(frequency: 1000)
  1000.times { |i| Rperf.label(req: "id#{k += 1}") { i * 2 } }
  Rperf.stop
end
Rperf.start(frequency: 1000)
print Rperf.label(req: "final-#{k}") { Rperf.labels }[:req]
Rperf.stop
RUBY
seen=$(RPERF_ENABLED=0 profiled many-sessions "$RUBY" labels_many.rb)
[ "$seen" = "final-70000" ] || fail "after 70,000 label sets in 70 sessions, a new label reads '$seen'"
note "70 sessions of 1,000 labels each: a new label still reads '$seen'"

# frame names bounded in bytes: long distinct eval file names
cat >long_paths.rb <<'RUBY'
50_000.times do |i|
  eval("def m#{i % 100}; x = 'a' * 10; x; end; m#{i % 100}", nil, "/app/#{'d' * 4000}/#{i}.rb", 1)
end
GC.start
puts File.read("/proc/self/status")[/VmRSS:\s*(\d+)/, 1]
RUBY
plain_kb=$("$RUBY" long_paths.rb)
agent_kb=$(RPERF_ALLOC=1 profiled long-paths "$RUBY" long_paths.rb 2>long_paths.err)
[ "$(grep -c "^rperf: frame names: the bound is reached (.* of 32 MB of text)" long_paths.err)" = 1 ] ||
    fail "the byte bound of frame names was not said once: $(cat long_paths.err)"
[ $(( agent_kb - plain_kb )) -le $(( 80 * 1024 )) ] ||
    fail "50,000 evals under 4 KB names: ${agent_kb} KB resident with the agent, ${plain_kb} KB without"
# every allocation sampled: those of the methods eval'd past the bound
# are under the shared name whatever the machine's load (a time sample
# lands in that code rarely)
"$ANALYZE" report --measure alloc --top 1000 long-paths >long_paths.txt 2>&1 || fail "report: $(head -3 long_paths.txt)"
grep -q "other frames: past the bound" long_paths.txt ||
    fail "the allocations of frames past the bound are not under the [other frames] name: $(head -12 long_paths.txt)"
note "50,000 evals under 4 KB file names: $((agent_kb / 1024)) MB resident with the agent, $((plain_kb / 1024)) MB without; the bound said once"

# Requests held open (streaming responses on 300 fibers, each resumed in
# turn, deep stacks at 10 kHz): their kept samples stop at a bound for the
# process (SPANS_HELD_MAX, 16 MB; said once), past which a request's
# samples go to the profile as they come. The peak memory stays within
# 40 MB of the same program's without requests (+25 MB here; +75 MB
# before the bound, which was per thread: 1,024 requests of 64 K frames).
cat >stream.rb <<'RUBY'
require "rperf"
require "cpu_burn"
def deep(n, s) = n == 0 ? burn_cpu(s) : deep(n - 1, s)
requests = ARGV[0] == "requests"
fibers = Array.new(300) do |i|
  Fiber.new do
    body = -> { loop { deep(470, 0.0005); Fiber.yield } }
    requests ? Rperf.request("GET /stream/#{i}", &body) : body.call
  end
end
20.times { fibers.each(&:resume) }
puts File.read("/proc/self/status")[/VmHWM:\s*(\d+)/, 1]
RUBY
peak=()
for how in plain requests; do
    peak+=("$(RPERF_FREQUENCY=10000 profiled "s-$how" "$RUBY" stream.rb "$how" 2>"s-$how.err")") ||
        fail "stream.rb $how: $(cat "s-$how.err")"
done
held=$(( (peak[1] - peak[0]) / 1024 ))
note "300 streaming requests: peak memory ${peak[0]} kB without requests, ${peak[1]} kB with (+$held MB); $(grep -c 'kept samples reached' s-requests.err) notice"
grep -q "the open requests' kept samples reached 16 MB" s-requests.err ||
    fail "the open requests' bound was not said: $(cat s-requests.err)"
[ "$(grep -c 'kept samples reached' s-requests.err)" = 1 ] || fail "the bound was said more than once"
[ "$held" -le 40 ] || fail "300 open requests took $held MB more at their peak (at most 40)"
