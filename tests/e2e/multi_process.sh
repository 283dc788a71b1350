# A program that forks workers (one leaving with exit!, one forking again),
# runs a Ruby child with system, runs sh, daemonizes a child, and exits 3:
# its status is kept, every Ruby process writes one profile, non-root
# processes carry %pid, and the analyzer counts the processes.
. "$(dirname "$0")/lib.sh"

cat >child.rb <<'RUBY'
require "cpu_burn"
def spawned_work = burn_cpu(0.05)
spawned_work
RUBY
cat >prog.rb <<'RUBY'
require "cpu_burn"
def worker_work(n) = burn_cpu(0.02 * n)
def root_work = burn_cpu(0.02)
puts $$
pids = 4.times.map do |i|
  fork do
    worker_work(i + 1)
    if i == 0
      exit! 0
    elsif i == 1
      Process.wait(fork { worker_work(1) })   # a child of a child
    end
  end
end
pids.each { |pid| Process.wait(pid) }
system(RbConfig.ruby, ARGV[0]) or abort "ruby child failed"
system("sh", "-c", "true") or abort "sh failed"
daemon = fork do
  worker_work(1)
  Process.daemon(true, true)
  worker_work(2)
  File.write(ARGV[1], "done")
end
Process.wait(daemon)
root_work
exit 3
RUBY

rc=0
profiled "$WORK/s" "$RUBY" prog.rb "$WORK/child.rb" "$WORK/daemon.done" >out.txt 2>err.txt || rc=$?
[ "$rc" = 3 ] || fail "exit status $rc, expected 3 ($(cat err.txt))"
for _ in $(seq 1 100); do
    [ -f "$WORK/daemon.done" ] && break
    sleep 0.1
done
# root + 4 workers + grandchild + system's ruby + the child that called
# Process.daemon (its parent half leaves with _exit) + the daemon itself
expected=9
for _ in $(seq 1 50); do
    [ "$(ls "$WORK/s" | grep -c '^profile-.*\.json\.gz$')" -ge $expected ] && break
    sleep 0.1
done
count=$(ls "$WORK/s" | grep -c '^profile-.*\.json\.gz$')
note "$count profiles: $(ls "$WORK/s" | tr '\n' ' ')"
[ "$count" = $expected ] || fail "expected $expected profiles, found $count"
[ -z "$(ls "$WORK/s" | grep -v '^profile-.*\.json\.gz$')" ] || fail "stray files: $(ls "$WORK/s")"

# One profile per pid; every sample of every process but the root carries
# %pid=<its pid>; the root's carry none.
root=$(head -n 1 out.txt)
for f in "$WORK/s"/profile-*.json.gz; do
    check schema "$f" >/dev/null || fail "bad profile $f"
    pid=$(check field "$f" pid)
    [[ $(basename "$f") == profile-$pid-* ]] || fail "$f does not carry its pid"
    labeled=$(check labeled "$f" - "%pid=$pid")
    total=$(check total "$f")
    if [ "$pid" = "$root" ]; then
        check field "$f" label_sets | grep -q '%pid' && fail "the root's profile has %pid labels"
    else
        [ "$labeled" = "$total" ] || fail "$f: only $labeled of $total ns carry %pid=$pid"
    fi
done
[ -n "$(ls "$WORK/s"/profile-"$root"-*.json.gz)" ] || fail "no profile of the root (pid $root)"
[ "$(ls "$WORK/s" | sed 's/^profile-\([0-9]*\)-.*/\1/' | sort -u | wc -l)" = $expected ] \
    || fail "two profiles share a pid"

"$ANALYZE" report "$WORK/s" >report.txt
grep -q "^Processes: $expected$" report.txt || fail "report does not count $expected processes: $(head -4 report.txt)"
grep -q "Object#worker_work" report.txt || fail "workers' samples missing from the merged report"
if ! grep -q "Object#spawned_work" report.txt; then
    for f in "$WORK/s"/profile-*.json.gz; do
        echo "$(check field "$f" command) samples=$(check field "$f" sampling_count) triggers=$(check field "$f" trigger_count)" >&2
    done
    fail "spawned child's samples missing"
fi
