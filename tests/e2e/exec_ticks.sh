# Exec with a tick pending: other profilers killed their users' child
# processes this way — a timer signal pending at execve survives into the
# new program, whose default action for it is to terminate (dd-trace-rb
# issue 5101). This agent sends no signal to the program's threads (its
# ticker thread sets Ruby's postponed-job interrupt), so a child has
# nothing pending to die of; this test keeps it so. Both modes at
# 10 kHz, a busy thread beside (ticks keep coming), 300 each of
# fork+exec, system, spawn and IO.popen of /bin/true (10-19 ms each
# here): no child ends by a signal, every one exits 0.
. "$(dirname "$0")/lib.sh"

cat >children.rb <<'RUBY'
# busy, yet passing the GVL often: a thread that keeps it for Ruby's
# 100 ms time slice makes every Process.wait wait that long for it
busy = Thread.new { x = 0; loop { 500.times { x += 1 }; Thread.pass } }
n = Integer(ARGV[0])
bad = Hash.new(0)
check = ->(kind) { bad[kind] += 1 unless $?.success? && !$?.signaled? }
n.times do
  Process.wait(fork { exec("/bin/true") }); check.(:fork_exec)
  system("/bin/true"); check.(:system)
  Process.wait(spawn("/bin/true")); check.(:spawn)
  IO.popen(["/bin/true"], &:read); check.(:popen)
end
busy.kill
puts bad.empty? ? "ok" : bad.inspect
RUBY

for mode in cpu wall; do
    out=$(RPERF_MODE=$mode RPERF_FREQUENCY=10000 profiled "$WORK/$mode" timeout 300 "$RUBY" children.rb 300) ||
        fail "$mode: exit status $?: $out"
    [ "$out" = ok ] || fail "$mode at 10 kHz: children ended badly: $out"
    note "$mode at 10 kHz: 1,200 children (fork+exec, system, spawn, IO.popen of /bin/true), every one exited 0"
done
