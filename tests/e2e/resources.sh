# A program out of file descriptors still gets its profile: it opens pipes,
# then duplicates descriptors, until EMFILE (what Ruby's own
# TestIO#test_dup_many does) and keeps them all open at exit. Its output is
# the same as without the agent, the agent prints nothing, and the profile
# is written with the program's time in it (agent/fd_reserve.h).
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
