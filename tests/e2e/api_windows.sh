# Rperf.snapshot(clear:) and Rperf.start/stop under the agent: the program
# (tests/e2e/api/windows.rb) checks the gem-shaped data it gets; here, the
# file Rperf.start(output:) wrote, and that the profile written at exit
# still covers the whole run (windows take nothing away from it).
. "$(dirname "$0")/lib.sh"
API="$RPERF_TEST_SRC/tests/e2e/api"

profiled s "$RUBY" "$API/windows.rb" >out.txt 2>err.txt || fail "windows.rb failed: $(cat err.txt)"
grep -q "windows.rb ok" out.txt || fail "windows.rb did not finish: $(cat out.txt err.txt)"
f=$(only_profile s)
ms_of() { awk -v ns="$("$RUBY" "$CHECK" weight "$1" "$2")" 'BEGIN { printf "%.1f", ns / 1e6 }'; }
near() { awk -v g="$1" -v t="$2" 'BEGIN { exit !(g >= t * 0.9 && g <= t * 1.1) }'; }

# Each method's own CPU (burn_cpu burns its thread's CPU time), and the
# three together. On a loaded machine a late tick lumps the CPU since the
# one before on whatever runs at the next sample, across one method's end
# into the next (84.2 ms of after_clear's 100 once, the rest in what
# followed): each alone within 25% (a window that took its samples away
# would leave it near 0), the three together within 10%.
sum=0
for m in "Object#before_clear 200" "Object#after_clear 100" "Object#windowed 450"; do
    set -- $m
    got=$(ms_of "$f" "$1")
    awk -v g="$got" -v t="$2" 'BEGIN { exit !(g >= t * 0.75 && g <= t * 1.25) }' ||
        fail "exit profile: $1 $got ms, truth $2 ms"
    sum=$(awk -v a="$sum" -v b="$got" 'BEGIN { print a + b }')
    note "exit profile: $1 $got ms (truth $2)"
done
near "$sum" 750 || fail "exit profile: the three methods $sum ms, truth 750 ms"

[ -f window.json.gz ] || fail "Rperf.start(output:) wrote nothing"
"$RUBY" "$CHECK" schema window.json.gz || fail "the window's file is not a valid profile"
got=$(ms_of window.json.gz Object#windowed)
near "$got" 150 || fail "window file: Object#windowed $got ms, truth 150"
[ "$(ms_of window.json.gz Object#before_clear)" = 0.0 ] || fail "window file holds time from before the window"
"$ANALYZE" stat window.json.gz >stat.txt || fail "stat of the window file"
note "window file: Object#windowed $got ms; stat reads it"

# The session wrote pprof in its own mode; the whole-process profile kept
# its own: cpu at 1000 Hz, where the session's sleep costs nothing.
"$ANALYZE" report session.pb.gz >session.txt || fail "report of the session's pprof: $(cat session.txt)"
grep -q "^Total: .* (wall)" session.txt || fail "the session's pprof is not wall mode: $(head -2 session.txt)"
grep -q "Kernel#sleep" session.txt || fail "the session's sleep is missing: $(cat session.txt)"
[ "$("$RUBY" "$CHECK" field "$f" mode)" = '"cpu"' ] || fail "the exit profile is not cpu mode"
[ "$("$RUBY" "$CHECK" field "$f" frequency)" = 1000 ] || fail "the exit profile is not at 1000 Hz"
sleep_ms=$(ms_of "$f" Kernel#sleep)
awk -v s="$sleep_ms" 'BEGIN { exit !(s < 5) }' || fail "the exit profile (cpu) charges the sleep: $sleep_ms ms"
note "session: wall, pprof, with its sleep; exit profile: cpu, sleep $sleep_ms ms"

# A window's edges are exact for the thread that opens and closes it,
# whenever the ticks fall: at 10 Hz a tick may come up to 100 ms after
# Rperf.start or before Rperf.stop, and that stretch must not cross the
# edge. (On a loaded machine ticks come late at any frequency.)
cat >edges.rb <<'RUBY'
require "rperf"
require "cpu_burn"
def outside = burn_cpu(0.07)
def inside = burn_cpu(0.15)
outside
Rperf.start
inside
data = Rperf.stop
outside
printf("%.1f %d\n", data[:aggregated_samples].sum { |_, w, *| w } / 1e6, data[:sampling_count])
RUBY
RPERF_FREQUENCY=10 profiled e "$RUBY" edges.rb >edges.txt 2>edges.err || fail "edges.rb: $(cat edges.err)"
read -r got samples <edges.txt
near "$got" 150 || fail "a window at 10 Hz holds $got ms, truth 150 ms"
note "a window at 10 Hz: $got ms (truth 150) from $samples samples"
note "api_windows: ok"
