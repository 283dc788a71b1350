# fork() taken while other threads run and sampling is active never
# deadlocks the child; repeated many times, at 10 kHz.
. "$(dirname "$0")/lib.sh"
without_asan_quarantine

cat >prog.rb <<'RUBY'
def spin = loop { 1000.times.sum }
threads = 4.times.map { Thread.new { spin } }
40.times do
  pid = fork { 20_000.times.sum; GC.start }
  _, status = Process.wait2(pid)
  abort "child failed: #{status.inspect}" unless status.success?
end
puts "forked 40"
RUBY

# run_forking MODE: its exit status.
run_forking() {
    rm -rf "${WORK:?}/$1"
    RPERF_MODE=$1 RPERF_FREQUENCY=10000 timeout 120 \
        env LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/$1" RPERF_QUIET=1 "$RUBY" prog.rb >out.txt 2>err.txt
}

for mode in cpu wall; do
    rc=0
    retry_asan_fork_hang run_forking "$mode" || rc=$?
    [ "$rc" = 0 ] || fail "$mode: exit status $rc (124 means a child hung): $(tail -3 err.txt)"
    [ "$(cat out.txt)" = "forked 40" ] || fail "$mode: output $(cat out.txt)"
    count=$(ls "$WORK/$mode" | grep -c '^profile-')
    note "$mode: 40 forks under sampling, $count profiles"
    [ "$count" = 41 ] || fail "$mode: expected 41 profiles, found $count"
done
