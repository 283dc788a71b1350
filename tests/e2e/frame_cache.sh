# A program that stays in an incremental marking — it allocates nothing
# after a major GC began, so Ruby never takes the marking's next step —
# has its frames named once, not at every sample: a name kept during a
# marking (in the capture's cache, or its memo of the last stack) serves
# for as long as that marking lasts (liveness.h). Before, every sample of
# such a program named every frame again but a recursion's repeats (27%
# of the frames captured here; 1% now). RPERF_VERBOSE says how many
# frames were captured and how many named anew.
. "$(dirname "$0")/lib.sh"

cat >stuck.rb <<'RUBY'
def descend(depth, seconds)
  return spin(seconds) if depth <= 0
  descend(depth - 1, seconds)
end

def spin(seconds)
  t = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
  i = 0
  i += 1 while Process.clock_gettime(Process::CLOCK_MONOTONIC) < t
  i
end

KEEP = Array.new(300_000) { |i| "s#{i}" } # a heap whose marking takes many steps
GC.start(full_mark: true, immediate_mark: false)
before = GC.latest_gc_info(:state)
descend(10, 1.5)
after = GC.latest_gc_info(:state)
$stderr.puts "gc state: #{before} #{after}"
RUBY
RPERF_MODE=wall RPERF_VERBOSE=1 profiled "$WORK/session" "$RUBY" stuck.rb 2>err.txt
grep -q "gc state: marking marking" err.txt ||
    fail "the program was not in a marking from start to end, so this test says nothing: $(grep 'gc state' err.txt)"
line=$(grep "frame names:" err.txt) || fail "RPERF_VERBOSE said nothing of frame names: $(cat err.txt)"
read -r looked named < <(echo "$line" | sed -n 's/.*: \([0-9]*\) frames captured, \([0-9]*\) named anew.*/\1 \2/p')
[ "${looked:-0}" -gt 3000 ] || fail "too few frames captured to judge: $line"
awk -v n="$named" -v l="$looked" 'BEGIN { exit !(n < l * 0.1) }' ||
    fail "frames named anew at most samples while marking: $line"
note "${line#rperf: }"
