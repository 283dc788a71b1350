# Wall mode: a sleep is %GVL=blocked under the sleeping method, two threads
# burning CPU together produce %GVL=wait, GC.start produces %GC=mark; and
# cpu mode counts neither sleep nor waiting. The sample that falls where
# the sleep begins carries what ran since the tick before it: one tick's
# interval when ticks come on time, more when the machine is busy and the
# ticker thread waits for a core (11.6 ms of CPU seen under two busy loops
# on 2 cores, cpu_sleep.sh), so the bounds on a sleep's running time are a
# third (wall) and a sixth (cpu) of its 300 ms, which a profiler that
# weighed the sleep as running would put there in full.
. "$(dirname "$0")/lib.sh"

cat >prog.rb <<'RUBY'
def nap = sleep(0.3)
def burn(seconds)
  t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  nil while Process.clock_gettime(Process::CLOCK_MONOTONIC) - t < seconds
end
def collect = 10.times { GC.start }
nap
[Thread.new { burn(0.3) }, Thread.new { burn(0.3) }].each(&:join)
collect
RUBY

RPERF_MODE=wall profiled "$WORK/wall" "$RUBY" prog.rb
wall=$(only_profile "$WORK/wall")
check schema "$wall"
[ "$(check field "$wall" mode)" = '"wall"' ] || fail "mode is not wall"
blocked=$(check labeled "$wall" Object#nap %GVL=blocked)
running=$(check labeled "$wall" Object#nap -)
wait_ns=$(check labeled "$wall" Object#burn %GVL=wait)
mark=$(check labeled "$wall" Object#collect %GC=mark)
note "nap: blocked ${blocked} ns, running ${running} ns; burn: wait ${wait_ns} ns; collect: GC mark ${mark} ns"
[ "$blocked" -gt 270000000 ] && [ "$blocked" -lt 400000000 ] \
    || fail "sleep 0.3 shows ${blocked} ns of %GVL=blocked (expected about 300 ms)"
[ "$running" -lt 100000000 ] || fail "sleep 0.3 shows ${running} ns of running time"
[ "$wait_ns" -gt 50000000 ] || fail "two CPU-bound threads show only ${wait_ns} ns of %GVL=wait"
[ "$mark" -gt 0 ] || fail "GC.start shows no %GC=mark time"
"$ANALYZE" report "$WORK/wall" >report.txt
grep -q "^Total: .*ms (wall)$" report.txt || fail "report does not say wall"

RPERF_MODE=cpu profiled "$WORK/cpu" "$RUBY" prog.rb
cpu=$(only_profile "$WORK/cpu")
nap_cpu=$(check weight "$cpu" Object#nap)
gvl_cpu=$(check labeled "$cpu" - %GVL=blocked)
wait_cpu=$(check labeled "$cpu" - %GVL=wait)
mark_cpu=$(check labeled "$cpu" Object#collect %GC=mark)
note "cpu mode: nap ${nap_cpu} ns, GVL blocked ${gvl_cpu} ns, wait ${wait_cpu} ns, GC mark ${mark_cpu} ns"
[ "$nap_cpu" -lt 50000000 ] || fail "cpu mode counts the sleep: ${nap_cpu} ns"
[ "$gvl_cpu" -eq 0 ] && [ "$wait_cpu" -eq 0 ] || fail "cpu mode has GVL labels"
[ "$mark_cpu" -gt 0 ] || fail "cpu mode shows no %GC=mark time"
