# Allocation profiling beside Ractors that run their own GCs. On Ruby 3.4
# the agent's GC hooks see only the GCs a thread of the main Ractor runs:
# an object it followed (RPERF_ALLOC) could be freed by another Ractor's
# GC unseen, and reading it when the profile was written aborted Ruby
# ([BUG] objspace/memsize_of(): unknown data type 0x0), the program's
# output and the profile lost — 10 of 10 runs at RPERF_ALLOC=1. Now a GC
# run unseen since the last one the hooks saw drops what is followed
# (counted as not followed: the profile and stat say so) before anything
# is read. The program (the main Ractor makes 100,000 strings and drops
# them; two Ractors allocate and call GC.start) runs 10 times at
# RPERF_ALLOC=1 and 10 times at 100, and 3 times in a dormant agent with
# Rperf.start(alloc: 1) and a snapshot: every run ends normally, prints
# its output and writes its profile.
. "$(dirname "$0")/lib.sh"

cat >ractor_alloc.rb <<'RUBY'
$VERBOSE = nil # Ractor is experimental
kept = []
100_000.times { |i| kept << "string #{i}" }
kept = nil
rs = 2.times.map do |k|
  Ractor.new(k) do |k|
    a = []
    20.times { 5_000.times { |i| a << "r#{k} #{i}" }; a.clear; GC.start }
    k
  end
end
rs.each { |r| r.respond_to?(:value) ? r.value : r.take }
puts "done"
RUBY
cat >ractor_alloc_api.rb <<'RUBY'
require "rperf"
Rperf.start(alloc: 1, mode: :cpu)
load "ractor_alloc.rb"
snap = Rperf.snapshot
data = Rperf.stop
abort "no snapshot" unless snap && data
puts "api done"
RUBY

unfollowed=0
for rate in 1 100; do
    for run in $(seq 10); do
        dir="$WORK/s-$rate-$run"
        out=$(RPERF_ALLOC=$rate profiled "$dir" "$RUBY" ractor_alloc.rb 2>err.txt) ||
            fail "RPERF_ALLOC=$rate, run $run: exit status $?: $(grep -m1 -E 'BUG|Error' err.txt)"
        [ "$out" = done ] || fail "RPERF_ALLOC=$rate, run $run: output '$out'"
        f=$(only_profile "$dir")
        check schema "$f" >/dev/null || fail "RPERF_ALLOC=$rate, run $run: the profile is not valid"
        unfollowed=$((unfollowed + $(check field "$f" alloc_unfollowed)))
    done
done
note "20 runs with RPERF_ALLOC=1 and 100: each ended normally and wrote its profile; $unfollowed sampled objects not followed in all"
for run in $(seq 3); do
    out=$(RPERF_ENABLED=0 profiled "$WORK/api-$run" "$RUBY" ractor_alloc_api.rb 2>err.txt) || fail "Rperf.start(alloc: 1), run $run: exit status $?: $(grep -m1 -E 'BUG|Error' err.txt)"
    [ "$out" = "done
api done" ] || fail "Rperf.start(alloc: 1), run $run: output '$out'"
done
note "3 runs of Rperf.start(alloc: 1) with a snapshot in a dormant agent: each ended normally"
