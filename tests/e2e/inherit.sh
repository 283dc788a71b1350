# RPERF_INHERIT=0: only the first process is profiled; forked children stay
# quiet and spawned children do not get the agent, while other preloaded
# libraries stay in their LD_PRELOAD.
. "$(dirname "$0")/lib.sh"

cat >prog.rb <<'RUBY'
Process.wait(fork { 100_000.times.sum })
system(RbConfig.ruby, "-e", "100_000.times.sum")
system("sh", "-c", 'echo "child LD_PRELOAD=[$LD_PRELOAD]"')
RUBY

other="$RPERF_TEST_EMPTY_PRELOAD"
LD_PRELOAD="$other:$PRELOAD" RPERF_INHERIT=0 RPERF_SESSION_DIR="$WORK/s" RPERF_QUIET=1 \
    "$RUBY" prog.rb >out.txt
count=$(ls "$WORK/s" | grep -c '^profile-')
note "RPERF_INHERIT=0: $count profile(s); $(cat out.txt)"
[ "$count" = 1 ] || fail "expected exactly one profile, found $count"
# every preload but the agent stays (with sanitizers, their runtimes too)
kept="$other${RPERF_TEST_PRELOAD_FIRST:+:$RPERF_TEST_PRELOAD_FIRST}"
grep -qx "child LD_PRELOAD=\[$kept\]" out.txt || fail "child's LD_PRELOAD: $(cat out.txt), expected [$kept]"

LD_PRELOAD="$other:$PRELOAD" RPERF_SESSION_DIR="$WORK/all" RPERF_QUIET=1 "$RUBY" prog.rb >out.txt
count=$(ls "$WORK/all" | grep -c '^profile-')
[ "$count" = 3 ] || fail "with inheritance: expected 3 profiles, found $count"
grep -q "librperf-agent" out.txt || fail "with inheritance the child lost the agent: $(cat out.txt)"

# A fork child that is not profiled drops the parent's hooks at its first
# safepoint: with allocation sampling on, it kept the NEWOBJ hook, the GC
# and thread hooks, paying for each allocation what the profiled parent
# pays. Ruby 3.4's TracePoint.stat counts the C hooks of the main Ractor;
# the GC watch's hook at the end of each marking stays (one call per GC).
# Ruby 4.0 keeps GC and object hooks outside that list: nothing to count.
cat >hooks.rb <<'RUBY'
parent = TracePoint.stat.values.sum { |active, _| active }
r, w = IO.pipe
pid = fork do
  1000.times { Object.new }
  w.puts TracePoint.stat.values.sum { |active, _| active }
end
Process.wait(pid)
puts "#{parent} #{r.gets}"
RUBY
read -r parent child < <(RPERF_ALLOC=1000 RPERF_INHERIT=0 profiled "$WORK/hooks" "$RUBY" hooks.rb)
note "RPERF_INHERIT=0, RPERF_ALLOC=1000: $parent hooks in the parent, $child in its fork child"
if [ "$parent" -gt 0 ]; then
    [ "$child" -le 1 ] || fail "the fork child that is not profiled kept $child of the parent's $parent hooks"
fi
