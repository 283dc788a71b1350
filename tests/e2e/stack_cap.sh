# RPERF_MAX_STACKS: a program that keeps producing new stacks (methods
# compiled afresh by class_eval: new code, new frames) fills the stack
# table; as it nears the bound, the whole profile writes a part and goes
# on with empty tables, and a session of the Rperf API hands its part to
# the extension, so no sample goes to "[truncated: too many stacks]":
# every method is in the profile with its time, RPERF_VERBOSE and stat say
# how many parts were written and why, and Rperf.stop / snapshot give
# the session whole.
. "$(dirname "$0")/lib.sh"

cat >churn.rb <<'RUBY'
require "cpu_burn"
200.times do |i|
  Object.class_eval("def churn_#{i} = burn_cpu(0.005)")
  send(:"churn_#{i}")
end
RUBY
RPERF_MAX_STACKS=30 RPERF_FREQUENCY=10000 RPERF_VERBOSE=1 profiled s "$RUBY" churn.rb >out.txt 2>err.txt \
    || fail "churn.rb: $(cat err.txt)"
parts=(s/profile-*.json.gz)
# 200 methods of 5 ms, each its own stack, at most 30 stacks a part. The
# worker folds samples 2,048 at a time (0.2 s at 10 kHz): the table is
# seen filling, and a part taken, a few times before the last.
[ "${#parts[@]}" -ge 2 ] || fail "${#parts[@]} profile files for 200 stacks at RPERF_MAX_STACKS=30"
for f in "${parts[@]}"; do
    stacks=$("$RUBY" "$CHECK" field "$f" unique_stacks)
    [ "$stacks" -le $((30 + 8192)) ] || fail "$f: $stacks distinct stacks, bound 30 (+ two buffers while a part is asked)"
done
"$ANALYZE" convert --json -o merged.json.gz s || fail "merge: $(cat err.txt)"
ms() { awk -v ns="$1" 'BEGIN { printf "%.1f", ns / 1e6 }'; }
capped=$(ms "$("$RUBY" "$CHECK" weight merged.json.gz "[truncated: too many stacks]")")
total=$(ms "$("$RUBY" "$CHECK" total merged.json.gz)")
churn=$(ms "$("$RUBY" "$CHECK" weight merged.json.gz "Object#burn_cpu")")
[ "$capped" = "0.0" ] || fail "$capped ms on the truncated stack"
# Every sample counts, on the method that burnt it: the 1000 ms burnt are
# in the total and under burn_cpu, which each churn_ method calls.
awk -v t="$total" -v c="$churn" 'BEGIN { exit !(t >= 1000 * 0.9 && c >= 1000 * 0.9) }' \
    || fail "total $total ms, $churn ms in burn_cpu; the program burnt 1000"
seen=$("$ANALYZE" report --top 1000 s | grep -c "Object#churn_[0-9]")
[ "$seen" -ge 150 ] || fail "only $seen of 200 churn_ methods in the report"
n=${#parts[@]}
grep -q "rperf: $n parts written: 0 as RPERF_INTERVAL=0 ended, $((n - 1)) as the stack table filled (RPERF_MAX_STACKS=30), the last at the end" err.txt \
    || fail "RPERF_VERBOSE did not say how the $n parts ended: $(cat err.txt)"
! grep -q "went to \[truncated" err.txt || fail "RPERF_VERBOSE says samples were truncated: $(cat err.txt)"
"$ANALYZE" stat s >stat.txt || fail "stat"
grep -q "NOTE: written in parts: $((n - 1)) ended as the stack table filled (RPERF_MAX_STACKS), 0 as RPERF_INTERVAL ended" stat.txt \
    || fail "stat does not say why the profile is in parts: $(cat stat.txt)"
! grep -q "processes profiled" stat.txt || fail "the parts counted as processes: $(cat stat.txt)"
note "whole process, bound 30: $n parts, $capped ms truncated, $churn ms in burn_cpu, $seen of 200 churn_ methods in the report, total $total ms"

# A session of the Rperf API (dormant agent): its parts are held by the
# extension; snapshot and stop give the whole session.
cat >session.rb <<'RUBY'
require "rperf"
require "cpu_burn"
def ms(d, re = nil)
  d[:aggregated_samples].sum { |frames, w, *| re.nil? || frames.any? { |f| f[1] =~ re } ? w : 0 } / 1e6
end
Rperf.start(frequency: 10000, mode: :cpu)
snap = nil
t0 = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
200.times do |i|
  Object.class_eval("def churn_#{i} = burn_cpu(0.005)")
  send(:"churn_#{i}")
  snap = Rperf.snapshot if i == 149
end
cpu = (Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) - t0) * 1000
d = Rperf.stop
methods = d[:aggregated_samples].flat_map { |frames, *| frames.map { |f| f[1] } }.grep(/churn_/).uniq.size
printf("cpu %.1f total %.1f truncated %.1f churn %.1f methods %d parts %d snapshot %.1f snapshot_methods %d\n",
       cpu, ms(d), ms(d, /truncated/), ms(d, /churn_/), methods, d[:parts_ended_by_full_stacks].to_i, ms(snap),
       snap[:aggregated_samples].flat_map { |frames, *| frames.map { |f| f[1] } }.grep(/churn_/).uniq.size)
RUBY
RPERF_MAX_STACKS=30 RPERF_ENABLED=0 LD_PRELOAD=$PRELOAD "$RUBY" session.rb >session.txt 2>err.txt \
    || fail "session.rb: $(cat err.txt)"
read -r _ cpu _ total _ truncated _ churn _ methods _ parts _ snapshot _ snap_methods <session.txt
[ "$truncated" = "0.0" ] || fail "session: $truncated ms truncated: $(cat session.txt)"
[ "$parts" -ge 1 ] || fail "session: no part taken at RPERF_MAX_STACKS=30: $(cat session.txt)"
awk -v t="$total" -v c="$churn" -v cpu="$cpu" 'BEGIN { exit !(t >= cpu * 0.9 && t <= cpu * 1.1 && c >= cpu * 0.9) }' \
    || fail "session: total $total ms, $churn ms on churn_, the thread's CPU $cpu ms"
[ "$methods" -ge 150 ] || fail "session: $methods of 200 churn_ methods"
# the snapshot, taken after 150 of them, has the parts taken by then
awk -v s="$snapshot" 'BEGIN { exit !(s >= 750 * 0.8 && s <= 750 * 1.2) }' \
    || fail "session: the snapshot after 750 ms of churn_ holds $snapshot ms"
[ "$snap_methods" -ge 110 ] || fail "session: the snapshot has $snap_methods of 150 churn_ methods"
note "session, bound 30: $(cat session.txt)"
