# Two threads burning CPU at the same time appear as two thread_seq values,
# each weighed about as much CPU as the thread really used.
. "$(dirname "$0")/lib.sh"

cat >prog.rb <<'RUBY'
def spin_a(n) = n.times.sum { |i| i * 3 }
def spin_b(n) = n.times.sum { |i| i * 5 }
cpu = -> { Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :nanosecond) }
a = Thread.new { spin_a(3_000_000); cpu.call }
b = Thread.new { spin_b(3_000_000); cpu.call }
puts "a #{a.value}", "b #{b.value}"
RUBY
profiled "$WORK/s" "$RUBY" prog.rb >truth.txt
profile=$(only_profile "$WORK/s")
check schema "$profile"
check threads "$profile" "Object#spin_a" >a.txt
check threads "$profile" "Object#spin_b" >b.txt
note "spin_a by thread: $(cat a.txt | tr '\n' ' ')  spin_b by thread: $(cat b.txt | tr '\n' ' ')"
[ "$(wc -l <a.txt)" -eq 1 ] || fail "spin_a is attributed to more than one thread"
[ "$(wc -l <b.txt)" -eq 1 ] || fail "spin_b is attributed to more than one thread"
read -r seq_a weight_a <a.txt
read -r seq_b weight_b <b.txt
[ "$seq_a" != "$seq_b" ] || fail "both threads share thread_seq $seq_a"
[ "$seq_a" -gt 1 ] && [ "$seq_b" -gt 1 ] || fail "worker threads numbered like the main thread"
# Each thread's weight against its own CPU clock (wide band: not a timing test).
truth_a=$(awk '$1 == "a" { print $2 }' truth.txt)
truth_b=$(awk '$1 == "b" { print $2 }' truth.txt)
for pair in "$weight_a $truth_a" "$weight_b $truth_b"; do
    set -- $pair
    awk -v w="$1" -v t="$2" 'BEGIN { exit !(w > 0.75 * t && w < 1.25 * t) }' \
        || fail "thread weighed $1 ns but used $2 ns of CPU"
done
