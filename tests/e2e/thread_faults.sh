# The agent's own threads refused (pthread_create failing with EAGAIN, as
# at a thread limit; tests/e2e/fail_threads.c fails the agent's calls only):
# the program runs as without the agent — its output and its exit status —
# and the agent says in one line what it cannot do. The worker is the
# agent's first thread (no profile then), the ticker its second (a profile
# without samples). Whole-process, and a dormant agent's Rperf.start,
# which raises RuntimeError when it cannot start, as the gem's does when
# its timer cannot be made.
. "$(dirname "$0")/lib.sh"

cat >prog.rb <<'RUBY'
require "cpu_burn"
if ENV["VIA_API"]
  require "rperf"
  begin
    Rperf.start(frequency: 1000)
    burn_cpu(0.1)
    Rperf.stop
  rescue RuntimeError => e # what the gem raises when it cannot start
    STDERR.puts "Rperf.start refused: #{e.message}"
  end
end
burn_cpu(0.1)
t = Thread.new { burn_cpu(0.05); 21 }
puts t.value * 2
exit 3
RUBY
want_out=$("$RUBY" prog.rb) && fail "prog.rb exited 0 without the agent"
run_failing() { # run_failing NAME POSITIONS ENV...: prog.rb with those agent threads refused
    local name=$1 positions=$2
    shift 2
    local rc=0
    env LD_PRELOAD="$RPERF_TEST_FAIL_THREADS_LIB:$PRELOAD" RPERF_TEST_FAIL_THREADS="$positions" \
        RPERF_SESSION_DIR="$WORK/$name" "$@" "$RUBY" prog.rb >"$name.out" 2>"$name.err" || rc=$?
    [ "$rc" = 3 ] || fail "$name: exit status $rc, the program's is 3: $(head -3 "$name.err")"
    [ "$(cat "$name.out")" = "$want_out" ] || fail "$name: output '$(cat "$name.out")', the program's is '$want_out'"
    ! grep -qi 'segmentation\|\[BUG\]\|abort' "$name.err" || fail "$name: $(head -5 "$name.err")"
}
said_once() { # said_once NAME TEXT
    [ "$(grep -c "$2" "$1.err")" = 1 ] || fail "$1: expected one line with '$2', stderr: $(cat "$1.err")"
}

run_failing worker 1
said_once worker "cannot profile: cannot start the worker thread: Resource temporarily unavailable"
note "worker refused: $(grep -c . worker.err) line(s) on stderr: $(head -1 worker.err)"

run_failing ticker 2
said_once ticker "cannot sample: cannot start the ticker thread: Resource temporarily unavailable"
note "ticker refused: $(grep -c . ticker.err) line(s) on stderr"

run_failing both 1,2
said_once both "cannot start the worker thread"

run_failing api_worker 1 RPERF_ENABLED=0 VIA_API=1
said_once api_worker "cannot start the worker thread"
said_once api_worker "Rperf.start refused: rperf: cannot start a session"
run_failing api_ticker 2 RPERF_ENABLED=0 VIA_API=1
said_once api_ticker "cannot start the ticker thread"
! grep -q "Rperf.start refused" api_ticker.err || fail "api_ticker: $(cat api_ticker.err)"
note "dormant, Rperf.start with its worker refused: $(grep 'refused' api_worker.err)"
note "dormant, Rperf.start with its ticker refused: started, $(grep -c . api_ticker.err) line on stderr"
