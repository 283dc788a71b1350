# The Rack, Sidekiq and ActiveJob middlewares under the agent, without the
# rperf gem, in a deferred process (RPERF_DEFER=1): every request and job
# gets its label — Rack paths normalized (/users/123 → /users/:id, a UUID
# → :uuid), label: :raw and a proc; job: <class> — and time outside them is not
# sampled. The Rack app is a real Rack::Builder stack on Debian's ruby-rack,
# which scripts/setup unpacks into its cache; without it the test fails.
. "$(dirname "$0")/lib.sh"
API="$RPERF_TEST_SRC/tests/e2e/api"

find_rack_lib
RPERF_DEFER=1 profiled s "$RUBY" "$API/middleware.rb" >out.txt 2>err.txt \
    || fail "middleware.rb failed: $(cat err.txt)"
grep -q "middleware.rb ok" out.txt || fail "middleware.rb did not finish: $(cat out.txt err.txt)"
grep -q "^rack: Rack [0-9]" out.txt || fail "the Rack stack that ran is not Debian's Rack: $(grep '^rack:' out.txt)"
note "$(grep '^rack:' out.txt)"

near() { awk -v g="$1" -v t="$2" 'BEGIN { exit !(g >= t * 0.9 && g <= t * 1.1) }'; }

# expect KEY VALUE MS: report --by KEY gives VALUE about MS.
expect() {
    "$ANALYZE" report --by "$1" s >by.txt 2>&1 || fail "report --by $1: $(cat by.txt)"
    local got
    got=$(awk -v v="$2" '{ line = $0; sub(/^ *[0-9.]+ ms +[0-9.]+% +/, "", line) }
                         line == v { print $1 }' by.txt)
    [ -n "$got" ] || fail "$1=$2 missing: $(cat by.txt)"
    near "$got" "$3" || fail "$1=$2: $got ms, truth $3 ms (±10%)"
    note "$1=$2: $got ms (truth $3)"
}

expect endpoint "GET /users" 50
expect endpoint "GET /users/:id" 200
expect endpoint "GET /orders/:uuid/items/:id" 150
expect raw_endpoint "POST /users/7" 100
expect route "route-6" 50
expect job HardJob 100
expect job MailJob 50
expect job ReportJob 80

# Deferred: the 300 ms burnt outside every request and job is absent.
f=$(only_profile s)
total=$(awk -v ns="$("$RUBY" "$CHECK" total "$f")" 'BEGIN { printf "%.1f", ns / 1e6 }')
awk -v t="$total" 'BEGIN { exit !(t <= 780 * 1.15) }' \
    || fail "total $total ms: more than the requests' and jobs' 780 ms"
note "total $total ms (requests and jobs: 780 ms)"
note "api_middleware: ok"

# A recording that stops between the middleware's `Rperf.running?` and its
# profile block (rperf ctl stop lands at a safepoint of the request's own
# thread; another thread's Rperf.stop): the request and the job still run
# and answer as the app does. Rperf.profile raised "Rperf is not started"
# there, a 500 for Rack and a failed (retried) job for Sidekiq.
cat >stop_between.rb <<'RUBY'
require "rperf"
require "rperf/rack"
require "rperf/sidekiq"
class << Rperf
  alias_method :really_running?, :running?
  # the stop lands right after the check
  def running? = really_running?.tap { |on| stop if on }
end
app = ->(env) { [200, {}, ["ok"]] }
Rperf.start(mode: :wall)
status = Rperf::RackMiddleware.new(app).call("REQUEST_METHOD" => "GET", "PATH_INFO" => "/x")[0]
Rperf.start(mode: :wall)
job = Rperf::SidekiqMiddleware.new.call(nil, { "class" => "HardJob" }, "default") { :ran }
# A path with invalid bytes, as Rack::Utils.unescape_path("/caf%C3/42")
# gives it: the app's own answer, not an ArgumentError of the middleware's.
Rperf.start(mode: :wall)
bad = "/caf\xC3/42".dup.force_encoding(Encoding::UTF_8)
invalid = Rperf::RackMiddleware.new(->(env) { [400, {}, ["bad path"]] }).call("REQUEST_METHOD" => "GET", "PATH_INFO" => bad)[0]
Rperf.stop
puts "#{status} #{job} #{invalid}"
RUBY
# (dormant: with the whole-process profile on, profile blocks have it to go to)
out=$(RPERF_ENABLED=0 profiled stop "$RUBY" stop_between.rb 2>stop.err) || fail "stop_between.rb: $(cat stop.err)"
[ "$out" = "200 ran 400" ] ||
    fail "a stop between running? and the profile block, a path with invalid bytes: '$out' (want '200 ran 400'): $(cat stop.err)"
note "a stop between running? and the profile block: the request answered 200, the job ran; a path with invalid bytes: the app's 400"

# 100 recordings started and stopped from outside (rperf ctl start,
# snapshot, stop) while the middlewares serve a loop of requests and jobs,
# malformed ones among them: every status is the app's own, every job
# runs, and no exception of the profiler's reaches the app (before: a
# stop between `running?` and the profile block failed 19 requests of 30
# cycles with RuntimeError; an invalid UTF-8 method beside a binary path
# raised Encoding::CompatibilityError in the middleware).
export RPERF_AGENT=$RPERF_TEST_AGENT RPERF_ATTACH=$RPERF_TEST_ATTACH
rm -f stop
LD_PRELOAD="$PRELOAD" RPERF_ENABLED=0 "$RUBY" "$API/middleware_loop.rb" >loop.out 2>loop.err &
loop_pid=$!
for _ in $(seq 200); do grep -q started loop.out 2>/dev/null && break; sleep 0.05; done
grep -q started loop.out || fail "middleware_loop.rb did not start: $(cat loop.err)"
for i in $(seq 100); do
    "$RPERF_TEST_RPERF" ctl "$loop_pid" start --mode wall 2>>ctl.err || fail "ctl start $i: $(tail -1 ctl.err)"
    [ $((i % 10)) != 0 ] || "$RPERF_TEST_RPERF" ctl "$loop_pid" snapshot -o snap.json.gz 2>>ctl.err || fail "ctl snapshot $i"
    "$RPERF_TEST_RPERF" ctl "$loop_pid" stop -o cycle.json.gz 2>>ctl.err || fail "ctl stop $i: $(tail -1 ctl.err)"
done
touch stop
wait "$loop_pid" || fail "middleware_loop.rb ended with status $?: $(cat loop.err)"
read -r _ n _ malformed _ mismatches _ errors <<<"$(tail -1 loop.out)"
[ "$mismatches" = 0 ] && [ "$errors" = 0 ] && [ ! -s loop.err ] ||
    fail "100 ctl cycles: $(tail -1 loop.out): $(head -5 loop.err)"
[ "$malformed" -ge 1000 ] || fail "only $malformed malformed requests in $n"
[ "$(check field cycle.json.gz sampling_count)" -gt 0 ] || fail "the last ctl recording has no sample"
note "100 ctl start/stop cycles (10 snapshots) around $n requests and jobs, $malformed malformed: every status the app's, every job run, no error"
