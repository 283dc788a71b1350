# Hundreds of short-lived threads, in both modes: no crash, numbering
# covers them, and exited threads' records are recycled, not leaked.
. "$(dirname "$0")/lib.sh"

cat >prog.rb <<'RUBY'
def work(i) = (i * 1000).times.sum
600.times { |i| Thread.new { work(i % 50) }.join }
8.times.map { |i| Thread.new { 50.times { |k| Thread.new { work(k) }.join } } }.each(&:join)
puts "ok"
RUBY

for mode in cpu wall; do
    RPERF_MODE=$mode RPERF_VERBOSE=1 profiled "$WORK/$mode" "$RUBY" prog.rb >out.txt 2>err.txt \
        || fail "$mode: exit status $?"
    [ "$(cat out.txt)" = ok ] || fail "$mode: output $(cat out.txt)"
    f=$(only_profile "$WORK/$mode")
    check schema "$f" >/dev/null
    threads=$(check field "$f" detected_thread_count)
    records=$(sed -n 's/^\[Rperf\] thread records: \([0-9]*\) allocated.*/\1/p' err.txt)
    note "$mode: $threads threads seen, $records thread records allocated"
    [ "$threads" -ge 100 ] || fail "$mode: only $threads threads seen"
    [ -n "$records" ] && [ "$records" -le 40 ] || fail "$mode: $records records for $threads threads (leak)"
done
