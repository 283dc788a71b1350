# A preforking server under the agent with RPERF_INTERVAL: a parent forks
# two workers, replaces one (SIGTERM, fork anew), restarts all on SIGHUP,
# and stops them at the end. Every worker that ever ran writes its parts,
# each labelled with its %pid, and the session merges them all.
. "$(dirname "$0")/lib.sh"

cat >server.rb <<'RUBY'
require "cpu_burn"
def serve = loop { burn_cpu(0.02) }
$started = []
def start_worker = fork { serve }.tap { |pid| $started << pid }
def stop_worker(pid) = (Process.kill(:TERM, pid); Process.wait(pid))
workers = 2.times.map { start_worker }
restart = false
Signal.trap(:HUP) { restart = true }
t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
replaced = false
loop do
  sleep 0.05
  elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0
  if !replaced && elapsed > 1.2
    stop_worker(workers[0])
    workers[0] = start_worker
    replaced = true
  end
  if restart
    restart = false
    workers.each { |w| stop_worker(w) }
    workers = 2.times.map { start_worker }
  end
  break if elapsed > 3.6
end
workers.each { |w| stop_worker(w) }
File.write("workers.txt", $started.join("\n") + "\n")
RUBY
env LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/s" RPERF_QUIET=1 RPERF_INTERVAL=1 \
    "$RUBY" server.rb >out.txt 2>err.txt &
server=$!
sleep 2.3
kill -HUP "$server"
wait "$server" || fail "server exited with $?: $(cat err.txt)"
[ "$(wc -l <workers.txt)" = 5 ] || fail "expected 5 workers (2, 1 replacing one, 2 after SIGHUP): $(cat workers.txt)"
while read -r w; do
    files=(s/profile-"$w"-*.json.gz)
    [ -f "${files[0]}" ] || fail "worker $w wrote no part"
    for f in "${files[@]}"; do
        "$RUBY" "$CHECK" schema "$f" >/dev/null || fail "$f is not a valid profile"
    done
done <workers.txt
"$ANALYZE" report --by %pid s >pids.txt || fail "report --by %pid"
while read -r w; do
    grep -q " $w$" pids.txt || fail "worker $w is missing from the merged profile: $(cat pids.txt)"
done <workers.txt
"$ANALYZE" stat s >stat.txt || fail "stat"
grep -q " 6 .*Ruby processes profiled" stat.txt || fail "expected 6 processes: $(cat stat.txt)"
note "5 workers (one replacing another, two restarted on SIGHUP) and the parent: $(ls s | wc -l) parts, all merged"
