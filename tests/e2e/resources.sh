# A program out of file descriptors still gets its profile: it opens pipes,
# then duplicates descriptors, until EMFILE (what Ruby's own
# TestIO#test_dup_many does) and keeps them all open at exit. Its output is
# the same as without the agent, the agent prints nothing, and the profile
# is written with the program's time in it (agent/base/fd_reserve.h).
. "$(dirname "$0")/lib.sh"

cat >fds.rb <<'RUBY'
require "cpu_burn"
a = []
begin
  loop { a << IO.pipe }
rescue Errno::EMFILE
end
begin
  loop { a << [a[-1][0].dup] }
rescue Errno::EMFILE
  puts "EMFILE reached"
end
burn_cpu(0.2)
RUBY
(ulimit -n 256 && "$RUBY" fds.rb >plain.out 2>plain.err) || fail "without the agent: $(cat plain.err)"
rc=0
(ulimit -n 256 && profiled s "$RUBY" fds.rb >agent.out 2>agent.err) || rc=$?
[ "$rc" = 0 ] || fail "with the agent: exit $rc: $(cat agent.err)"
cmp -s plain.out agent.out || fail "stdout differs: $(diff plain.out agent.out)"
[ ! -s agent.err ] || fail "the agent printed: $(cat agent.err)"
f=$(only_profile s)
ms=$(awk -v ns="$("$RUBY" "$CHECK" weight "$f" Object#burn_cpu)" 'BEGIN { printf "%.1f", ns / 1e6 }')
awk -v m="$ms" 'BEGIN { exit !(m >= 180 && m <= 220) }' || fail "Object#burn_cpu: $ms ms, truth 200"
note "out of descriptors at exit: profile written, Object#burn_cpu $ms ms (truth 200)"

# The session directory removed under a server that writes parts: the
# first part lost is reported, the next ones only counted (not a line per
# interval), and once the directory is back the next part written says how
# many were lost.
cat >gone.rb <<'RUBY'
require "cpu_burn"
require "fileutils"
dir = ENV.fetch("RPERF_SESSION_DIR")
clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
burn_cpu(0.05) while Dir.glob("#{dir}/profile-*.json.gz").empty?
FileUtils.rm_rf(dir)
removed = clock.()
burn_cpu(0.05) while clock.() < removed + 2.2 # two interval boundaries at least
Dir.mkdir(dir, 0o700)
burn_cpu(0.3)
RUBY
RPERF_INTERVAL=1 profiled "$WORK/g" "$RUBY" gone.rb 2>gone.err || fail "gone.rb: $(cat gone.err)"
[ "$(grep -c "cannot write profile" gone.err)" = 1 ] \
    || fail "a removed session directory should be reported once: $(cat gone.err)"
grep -q "cannot write profile to $WORK/g: No such file or directory (parts of process [0-9]* that cannot be written are counted, not reported)" gone.err \
    || fail "the report does not name the directory and the reason: $(cat gone.err)"
lost=$(sed -n 's/.*written again; \([0-9]*\) parts lost$/\1/p' gone.err)
[ -n "$lost" ] && [ "$lost" -ge 2 ] || fail "no 'written again; N parts lost' (N >= 2): $(cat gone.err)"
[ "$(wc -l <gone.err)" = 2 ] || fail "the agent printed more than two lines: $(cat gone.err)"
# Part 1 went with the directory, parts 2 .. lost+1 were lost: the first
# part in the new directory is the next one (more follow on a slow machine).
back=(g/profile-*.json.gz)
[ -f "${back[0]}" ] || fail "no part written once the directory was back"
part=$("$RUBY" "$CHECK" field "${back[0]}" part)
[ "$part" = $((lost + 2)) ] || fail "the first part written after $lost lost is part $part, not $((lost + 2))"
note "session directory removed: reported once, $lost parts lost, part $part written when it came back"

# A file-size limit (ulimit -f) below the profile's size: writing it
# raises SIGXFSZ, whose default action killed the program at its exit
# ("File size limit exceeded", status 153, its buffered output lost, a
# .tmp file left). The program prints and exits as without the agent; the
# profile is reported as not written, in one line; nothing is left behind.
cat >limit.rb <<'RUBY'
x = 0
2_000_000.times { |i| x += i }
print "done #{x}"
exit 3
RUBY
want=$("$RUBY" limit.rb) && fail "limit.rb should exit 3"
rc=0
got=$(ulimit -f 1; profiled "$WORK/limit" "$RUBY" limit.rb 2>limit.err) || rc=$?
[ "$rc" = 3 ] || fail "under ulimit -f 1 the program exited $rc, 3 without the agent: $(cat limit.err)"
[ "$got" = "$want" ] || fail "under ulimit -f 1 the program's output changed: '$got', want '$want'"
grep -q "cannot write profile .*: File too large" limit.err || fail "no word of the profile not written: $(cat limit.err)"
[ "$(wc -l <limit.err)" = 1 ] || fail "the agent printed more than one line: $(cat limit.err)"
[ -z "$(ls -A "$WORK/limit")" ] || fail "left behind under ulimit -f 1: $(ls -A "$WORK/limit")"
note "ulimit -f 1: output and status unchanged, $(cat limit.err)"
