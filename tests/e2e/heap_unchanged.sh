# The profiled program's heap is the unprofiled program's: the agent keeps
# none of the program's objects alive (frames are held as names, sampled
# objects' classes as names), so the program collects garbage as often as
# without the agent, frees the classes and eval'd code it drops, and every
# sample keeps the right name although Ruby reuses the addresses of freed
# methods and classes for new ones.
. "$(dirname "$0")/lib.sh"

# 1. 3 M short-lived strings: GC count within 3% of the unprofiled run's
#    (the agent of 03d9f67 gave 1,460-1,500 against 1,663).
cat >strings.rb <<'RUBY'
GC.start
c0 = GC.count
3_000_000.times { |i| "str#{i}" }
puts GC.count - c0
RUBY
plain=$("$RUBY" strings.rb)
within_3_percent() {
    awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * 0.03) }'
}
for mode in cpu wall; do
    gcs=$(RPERF_MODE=$mode profiled "$WORK/strings-$mode" "$RUBY" strings.rb)
    within_3_percent "$gcs" "$plain" || fail "$mode mode: $gcs GCs, unprofiled $plain (more than 3% apart)"
    note "$mode mode: $gcs GCs, unprofiled $plain"
done
gcs=$(RPERF_ALLOC=64 profiled "$WORK/strings-alloc" "$RUBY" strings.rb)
within_3_percent "$gcs" "$plain" || fail "RPERF_ALLOC=64: $gcs GCs, unprofiled $plain (more than 3% apart)"
note "RPERF_ALLOC=64: $gcs GCs, unprofiled $plain"

# 2. 20,000 anonymous classes and Structs made, used and dropped, every
#    allocation sampled: as many classes alive after GC as without the
#    agent (the agent of 03d9f67 kept 20,000 more).
cat >classes.rb <<'RUBY'
def make
  20_000.times do
    c = Class.new { def hi = 1 }
    c.new.hi
    Struct.new(:a, :b).new(1, 2).a
  end
end
make
3.times { GC.start }
puts ObjectSpace.each_object(Class).count
RUBY
plain=$("$RUBY" classes.rb)
alive=$(RPERF_ALLOC=1 RPERF_FREQUENCY=5000 profiled "$WORK/classes" "$RUBY" classes.rb)
[ "$alive" -le $((plain + 300)) ] || fail "RPERF_ALLOC=1: $alive classes alive after GC, $plain without the agent"
note "classes alive after GC: $alive with RPERF_ALLOC=1, $plain without the agent"
"$ANALYZE" report --measure alloc --by '%class' "$WORK/classes" >alloc.txt
grep -q "anonymous subclass of Struct" alloc.txt || fail "the Structs' samples lost their name: $(head -12 alloc.txt)"

# 3. Code eval'd, run (and sampled) and dropped: its instruction sequences
#    are freed as without the agent; and names stay right while their
#    addresses are reused. Method m<i> is only ever called by c<i>, each
#    defined by its own eval (so its own instruction sequence): a sample
#    whose leaf is m<i> under any caller but c<i> would be a stale name.
cat >evals.rb <<'RUBY'
require "objspace"
def spin(t) = (x = 0; x += 1 while Process.clock_gettime(Process::CLOCK_MONOTONIC) < t)
class Gen; end
2_000.times do |i|
  Gen.class_eval("def m#{i}(t) = spin(t)", "gen_m#{i}.rb")
  Gen.class_eval("def c#{i}(t) = m#{i}(t)", "gen_c#{i}.rb")
  Gen.new.send("c#{i}", Process.clock_gettime(Process::CLOCK_MONOTONIC) + 0.001)
  Gen.send(:remove_method, "m#{i}", "c#{i}")
  GC.start(full_mark: false) if i % 50 == 0
  GC.compact if i % 500 == 499
end
3.times { GC.start }
puts ObjectSpace.count_imemo_objects[:imemo_iseq]
RUBY
plain=$("$RUBY" evals.rb)
iseqs=$(RPERF_FREQUENCY=5000 profiled "$WORK/evals" "$RUBY" evals.rb)
[ "$iseqs" -le $((plain + 200)) ] || fail "$iseqs instruction sequences alive after GC, $plain without the agent"
note "instruction sequences alive after GC: $iseqs, $plain without the agent"
"$ANALYZE" convert --collapsed "$WORK/evals" >evals.folded
awk '
    {
        sub(/ [0-9]+$/, ""); n = split($0, f, ";")
        for (i = 2; i <= n; i++) if (f[i] ~ /^Gen#m[0-9]+$/) {
            checked++
            if (f[i - 1] != "Gen#c" substr(f[i], 6)) { bad++; if (bad < 5) print "stale: " f[i - 1] " calls " f[i] > "/dev/stderr" }
        }
    }
    END { print checked + 0, bad + 0 }' evals.folded >pairs.txt
read -r checked bad <pairs.txt
[ "$checked" -ge 500 ] || fail "only $checked samples under Gen#m<i> (expected thousands)"
[ "$bad" = 0 ] || fail "$bad of $checked samples name a method under another's caller"
note "$checked samples under Gen#m<i>, every one under its own Gen#c<i>"

# 4. Named classes made, allocated from (every allocation sampled) and
#    dropped: each sample keeps its own class's name although Ruby reuses
#    the addresses of freed classes for new ones (the agent caches class
#    names by address). K<i> is only ever made by make_k<i>.
#    (A full GC after each class: the next one takes the slot of the one
#    just freed, as a rule.)
cat >named_classes.rb <<'RUBY'
400.times do |i|
  Object.const_set("K#{i}", Class.new)
  Object.class_eval("def make_k#{i} = K#{i}.new", "gen_k#{i}.rb")
  5.times { send("make_k#{i}") }
  Object.send(:remove_const, "K#{i}")
  Object.send(:remove_method, "make_k#{i}")
  i % 100 == 99 ? GC.compact : GC.start
end
RUBY
RPERF_ALLOC=1 profiled "$WORK/named_classes" "$RUBY" named_classes.rb
"$ANALYZE" convert --json -o named_classes.json "$WORK/named_classes"
"$RUBY" -rjson -e '
    profile = JSON.parse(File.read(ARGV[0]))
    checked = bad = 0
    profile["alloc_samples"].each do |stack, _weight, _thread, set|
        maker = stack.map(&:last).grep(/\AObject#make_k\d+\z/).first or next
        klass = profile["label_sets"][set]["%class"]
        next unless klass.start_with?("K")
        checked += 1
        next if klass == "K#{maker[/\d+/]}"
        bad += 1
        warn "stale: #{klass} made by #{maker}" if bad < 5
    end
    puts "#{checked} #{bad}"' named_classes.json >classes_checked.txt
read -r checked bad <classes_checked.txt
[ "$checked" -ge 400 ] || fail "only $checked sample sites of classes K<i> (expected 400)"
[ "$bad" = 0 ] || fail "$bad of $checked samples of class K<i> name another class"
note "$checked sample sites of K<i>, every one under its own make_k<i>"

# 5. Fibers dropped inside an open request (Rperf.request around a
#    Fiber.yield never resumed): freed as without the agent (the agent of
#    bd27441 kept 1,024 alive), and every request is still counted once,
#    closed with no status when its fiber is found dead.
cat >fibers.rb <<'RUBY'
begin; require "rperf"; rescue LoadError; end
def req(i) = defined?(Rperf.request) ? Rperf.request("GET /f#{i % 3}") { Fiber.yield } : Fiber.yield
fibers = 2_000.times.map { |i| f = Fiber.new { req(i) }; f.resume; f }
fibers = nil
3.times { GC.start }
puts ObjectSpace.each_object(Fiber).count
Fiber.new { defined?(Rperf.request) ? Rperf.request("GET /after") { 1 } : 1 }.resume
RUBY
plain=$("$RUBY" fibers.rb)
alive=$(profiled "$WORK/fibers" "$RUBY" fibers.rb)
[ "$alive" -le $((plain + 10)) ] || fail "$alive fibers alive after GC with the agent, $plain without"
"$ANALYZE" requests "$WORK/fibers" >fibers.txt
counted=$(awk '$NF ~ /^\/f[0-2]$/ { n += $1 } END { print n + 0 }' fibers.txt)
[ "$counted" = 2000 ] || fail "$counted of the 2,000 abandoned requests counted: $(cat fibers.txt)"
note "fibers dropped inside requests: $alive alive after GC ($plain without the agent), $counted requests counted"
