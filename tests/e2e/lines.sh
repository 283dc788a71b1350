# RPERF_LINES=1 records the line each frame is at: a method with two hot
# lines of known cost splits in their proportion, `report --lines` ranks
# them, `go tool pprof -lines` and `-list` see them, and files without
# lines (the default) carry none.
. "$(dirname "$0")/lib.sh"

cat >prog.rb <<'RUBY'
def two_hot_lines(n, m)
  i = 0; x = 0
  while i < n; x += i * 3; i += 1; end
  j = 0
  while j < m; x -= j * 5; j += 1; end
  x
end
cpu = -> { Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :nanosecond) }
line3 = line5 = 0
4.times do
  t = cpu.call; two_hot_lines(6_000_000, 0); line3 += cpu.call - t
  t = cpu.call; two_hot_lines(0, 2_000_000); line5 += cpu.call - t
end
puts line3, line5
RUBY

truths=$(RPERF_LINES=1 profiled "$WORK/s" "$RUBY" prog.rb | tr '\n' ' ')
read -r truth3 truth5 <<<"$truths"
profile=$(only_profile "$WORK/s")
check schema "$profile"
got3=$(check leaf_line "$profile" "Object#two_hot_lines" 3)
got5=$(check leaf_line "$profile" "Object#two_hot_lines" 5)
note "line 3: $((truth3 / 1000000)) ms measured, $((got3 / 1000000)) ms in the profile;" \
     "line 5: $((truth5 / 1000000)) ms measured, $((got5 / 1000000)) ms"
share=$(awk -v a="$got3" -v b="$got5" 'BEGIN { print a / (a + b) }')
truth_share=$(awk -v a="$truth3" -v b="$truth5" 'BEGIN { print a / (a + b) }')
awk -v s="$share" -v t="$truth_share" 'BEGIN { exit !(s > t - 0.1 && s < t + 0.1) }' \
    || fail "line 3 has $share of the two lines' time, measured $truth_share"
for pair in "$got3 $truth3" "$got5 $truth5"; do
    set -- $pair
    awk -v w="$1" -v t="$2" 'BEGIN { exit !(w > 0.9 * t && w < 1.1 * t) }' \
        || fail "a line weighs $1 ns in the profile but took $2 ns"
done

"$ANALYZE" report --lines "$WORK/s" >report.txt
grep -q "Object#two_hot_lines (prog.rb:3)" report.txt || fail "report --lines has no row for line 3"
grep -q "Object#two_hot_lines (prog.rb:5)" report.txt || fail "report --lines has no row for line 5"
"$ANALYZE" report "$WORK/s" >methods.txt
grep -q "Object#two_hot_lines (prog.rb)$" methods.txt || fail "report without --lines is not per method"

"$ANALYZE" convert --pprof -o prof.pb.gz "$WORK/s"
go tool pprof -lines -top prof.pb.gz >pprof_lines.txt 2>/dev/null
grep -q "Object#two_hot_lines prog.rb:3" pprof_lines.txt || fail "pprof -lines -top does not show line 3"
grep -q "Object#two_hot_lines prog.rb:5" pprof_lines.txt || fail "pprof -lines -top does not show line 5"
go tool pprof -list 'two_hot_lines' prof.pb.gz >pprof_list.txt 2>/dev/null
grep -qE "^ +[0-9.]+m?s +[0-9.]+m?s +3:  while i < n" pprof_list.txt \
    || fail "pprof -list does not attribute time to line 3: $(cat pprof_list.txt)"

profiled "$WORK/plain" "$RUBY" prog.rb >/dev/null
[ "$(check lines "$(only_profile "$WORK/plain")")" = 0 ] || fail "a profile without RPERF_LINES has lines"
