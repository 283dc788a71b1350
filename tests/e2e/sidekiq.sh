# Sidekiq from RubyGems (tests/gems.txt) on a real Redis (Debian's
# redis-server, started here on a loopback port), as users run it: the
# `sidekiq` command with the agent preloaded, in cpu and in wall mode, its
# jobs through Rperf::SidekiqMiddleware (servers/jobs.rb), and rperf
# attach into a running Sidekiq. rperf-analyze requests must count every
# job once under its class — an ActiveJob under its own class, not
# Sidekiq's wrapper — with its queue time from Sidekiq's enqueued_at, a
# failed job with status 5xx (and its retry left in Redis), the CPU of a
# computing job and the sleep of a sleeping one; attach must leave every
# job done.
. "$(dirname "$0")/lib.sh"
use_test_gems sidekiq activejob
command -v redis-server >/dev/null && command -v redis-cli >/dev/null || {
    echo "# skipped: redis-server is not installed (scripts/setup installs Debian's redis-server)"
    exit 77
}
SERVERS="$RPERF_TEST_SRC/tests/e2e/servers"
export RUBYLIB="$SERVERS:$RUBYLIB"
RPERF="$RPERF_TEST_RPERF"
export RPERF_AGENT=$RPERF_TEST_AGENT RPERF_ATTACH=$RPERF_TEST_ATTACH
at_exit 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true'

rport=$(free_port)
redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no >redis.log 2>&1 &
export REDIS_URL="redis://127.0.0.1:$rport/0"
rcli() { redis-cli -p "$rport" "$@"; }
for i in $(seq 100); do [ "$(rcli ping 2>/dev/null)" = PONG ] && break; sleep 0.1; done
[ "$(rcli ping 2>/dev/null)" = PONG ] || fail "redis-server did not answer on port $rport: $(cat redis.log)"

enqueue() { "$RUBY" "$SERVERS/jobs.rb" enqueue "$@" >enqueue.log 2>&1 || fail "enqueueing: $(cat enqueue.log)"; }

# start_sidekiq NAME ENV...: the sidekiq command in the background, its pid
# in $sidekiq
start_sidekiq() {
    local name=$1
    shift
    env "$@" "$RUBY" "$GEM_BIN/sidekiq" -r "$SERVERS/jobs.rb" -c 4 >"$name.out" 2>&1 &
    sidekiq=$!
}

# wait_done N: until N jobs are over (servers/jobs.rb counts them), 60 s
wait_done() {
    local i
    for i in $(seq 600); do
        [ "$(rcli get done)" = "$1" ] && return 0
        kill -0 "$sidekiq" 2>/dev/null || fail "sidekiq exited: $(tail -20 "$name.out")"
        sleep 0.1
    done
    fail "only $(rcli get done) of $1 jobs done in 60 s"
}

# stop_sidekiq: SIGTERM, as a deploy does; it must exit within 30 s
stop_sidekiq() { terminate "$sidekiq" 30 sidekiq; }

field() {
    "$RUBY" -rjson -e 'e = JSON.parse(File.read(ARGV[0])).find { |x| x["name"] == ARGV[1] }
        v = e && ARGV[2].split(".").reduce(e) { |h, k| h && h[k] }; print v.nil? ? "none" : v' "$@"
}

N=25
for mode in cpu wall; do
    rcli flushall >/dev/null
    enqueue "$N"
    sleep 1 # every job waits a second in its queue at least
    start_sidekiq "$mode" LD_PRELOAD="$PRELOAD" RPERF_MODE=$mode RPERF_SESSION_DIR="$WORK/$mode" RPERF_QUIET=1
    wait_done $((4 * N))
    stop_sidekiq
    "$ANALYZE" requests --json "$WORK/$mode" >"$mode.json" 2>"$mode.err" || fail "$mode: requests --json: $(cat "$mode.err")"
    for job in CpuJob SleepJob FailingJob ReportJob; do
        got=$(field "$mode.json" "$job" count)
        [ "$got" = "$N" ] || fail "$mode: $job counted $got times, $N were run: $(cat "$mode.json")"
        queue=$(field "$mode.json" "$job" queue_ms)
        awk -v q="$queue" -v n="$N" 'BEGIN { exit !(q >= 0.95 * 1000 * n) }' ||
            fail "$mode: $job queued $queue ms in all; each of its $N jobs waited a second or more"
    done
    [ "$(field "$mode.json" FailingJob status.5xx)" = "$N" ] || fail "$mode: FailingJob's statuses: $(cat "$mode.json")"
    [ "$(field "$mode.json" CpuJob status.2xx)" = "$N" ] || fail "$mode: CpuJob's statuses: $(cat "$mode.json")"
    [ "$(rcli zcard retry)" = "$N" ] || fail "$mode: $(rcli zcard retry) failed jobs in Sidekiq's retry set, $N failed"
    [ "$(field "$mode.json" Sidekiq::ActiveJob::Wrapper count)" = none ] || fail "$mode: an ActiveJob counted under Sidekiq's wrapper"
    cpu=$(field "$mode.json" CpuJob cpu_ms)
    awk -v c="$cpu" -v n="$N" 'BEGIN { exit !(c >= 0.9 * 20 * n && c <= 1.3 * 20 * n) }' ||
        fail "$mode: CpuJob $cpu ms on the CPU; its $N jobs burned 20 ms each"
    blocked=$(field "$mode.json" SleepJob blocked_ms)
    awk -v b="$blocked" -v n="$N" 'BEGIN { exit !(b >= 0.9 * 20 * n) }' ||
        fail "$mode: SleepJob blocked $blocked ms; its $N jobs slept 20 ms each"
    "$ANALYZE" report --tagfocus job=^CpuJob$ "$WORK/$mode" >"$mode.txt" || fail "$mode: report --tagfocus job=CpuJob"
    grep -q "CpuJob#perform" "$mode.txt" || fail "$mode: CpuJob#perform is not in the profile: $(head -30 "$mode.txt")"
    note "$mode mode: 4 x $N jobs counted once each, 5xx for the $N that failed (their retries in Redis); CpuJob $cpu ms of CPU, SleepJob blocked $blocked ms"
done

# --- rperf attach into a running Sidekiq, under load ---------------------------
rcli flushall >/dev/null
start_sidekiq attach RPERF_QUIET=1
enqueue 150 SleepJob CpuJob
for i in $(seq 100); do [ "$(rcli get done)" -gt 10 ] 2>/dev/null && break; sleep 0.1; done
"$RPERF" attach -d 2 -o "$WORK/attached.json.gz" "$sidekiq" 2>attach.err || fail "rperf attach into sidekiq $sidekiq: $(cat attach.err)"
wait_done 300
stop_sidekiq
[ "$(rcli zcard retry)" = 0 ] && [ "$(rcli zcard dead)" = 0 ] || fail "jobs failed while attached: $(rcli zcard retry) retries, $(rcli zcard dead) dead"
"$ANALYZE" report "$WORK/attached.json.gz" >attached.txt || fail "report of the attached Sidekiq"
grep -q "SleepJob#perform\|CpuJob#perform" attached.txt || fail "the attached profile shows no job: $(head -20 attached.txt)"
note "rperf attach into sidekiq (2 s, under load): 300 jobs done, none failed; the profile shows them"
