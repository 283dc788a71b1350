# Requests and jobs (spans): a Rack application over loopback under the
# agent, a bounded client sending 2,000 requests with 4 in flight
# (requests/server.rb, client.rb), in wall and cpu mode, served three ways:
# by WEBrick's threads, by 4 preforked WEBrick workers (no request waits
# for another's GVL), by fibers on one thread under a fiber scheduler (as
# Falcon serves); and a Sidekiq-shaped job runner (requests/jobs.rb).
# rperf-analyze requests must count what was sent, time the slow requests
# as the client saw them (from the X-Request-Start the client sends, as a
# proxy would, to the application's return), split each endpoint's time
# as its work did, and list the slowest with their own call trees.
. "$(dirname "$0")/lib.sh"
REQ="$RPERF_TEST_SRC/tests/e2e/requests"
find_webrick_lib
export RUBYLIB="$RACK_LIB:$WEBRICK_LIB:$RUBYLIB"

# field JSON NAME KEY: a key of an endpoint of requests --json
field() {
    "$RUBY" -rjson -e 'e = JSON.parse(File.read(ARGV[0])).find { |x| x["name"] == ARGV[1] }; print e ? e[ARGV[2]] : "none"' "$@"
}

# slowest_rows FILE: the rows of requests --slowest (after its header)
slowest_rows() {
    awk 'f && NF { print } /endpoint$/ { f = 1 }' "$1"
}

for how in threads prefork fibers; do
for mode in wall cpu; do
    at="$how, $mode"
    dir="s-$how-$mode"
    rm -f port
    # (RPERF_SLOW_MS=40 RPERF_SLOW_KEEP=1000: every request of 40 ms or
    # more kept one by one, the 40 sleeping /slow ones among them, not only
    # the 20 slowest of each endpoint, which a loaded machine fills with
    # requests the OS left without a core)
    RPERF_MODE=$mode RPERF_SLOW_MS=40 RPERF_SLOW_KEEP=1000 profiled "$dir" timeout 120 "$RUBY" "$REQ/server.rb" port "$how" >server.out 2>&1 &
    server=$!
    timeout 120 "$RUBY" "$REQ/client.rb" port >client.txt 2>client.err || fail "$at: client: $(cat client.err)"
    wait "$server" || fail "$at: server: $(cat server.out)"
    "$ANALYZE" requests --json "$dir" >req.json 2>req.err || fail "$at: requests --json: $(cat req.err) (server: $(head -c 600 server.out); $(ls -la "$dir"); $(cat client.txt))"
    "$ANALYZE" requests "$dir" >req.txt || fail "$at: requests"
    note "$at: $(sed -n 3,6p req.txt | tr -s ' ' | tr '\n' '|')"
    # every request counted once, whichever process or fiber served it
    for path in /fast /slow /cpu; do
        sent=$(awk -v p="$path" '$1 == "sent" && $2 == p { print $3 }' client.txt)
        got=$(field req.json "GET $path" count)
        [ "$got" = "$sent" ] || fail "$at: GET $path counted $got, the client sent $sent"
    done
    # /slow's p99 falls in its 50 ms sleepers, near what the client saw:
    # the request counts from its X-Request-Start, so the wait before the
    # application got it (behind a 20 ms /cpu holding the GVL or the one
    # thread) is in it, as its queue time; only writing the response and
    # the client's reading it are not — which a loaded machine stretches
    # (110.7 ms against the client's 125.5 with five busy processes on the
    # 2 cores), hence 80% of the client's at least, and no more than 10%
    # above it. Without the queue time it would be the sleep alone, about
    # half the client's.
    p99=$(field req.json "GET /slow" p99_ms)
    client=$(awk '$1 == "client_p99" { print $3 }' client.txt)
    queue=$(field req.json "GET /slow" queue_ms)
    note "$at: /slow p99 $p99 ms in the server, $client ms at the client; its queue time $queue ms in all"
    awk -v s="$p99" -v c="$client" 'BEGIN { exit !(s >= 50 && s >= 0.8 * c && s <= 1.1 * c) }' \
        || fail "$at: /slow p99 $p99 ms: not its 50 ms sleep, nor 80 to 110% of the client's $client ms"
    awk -v q="$queue" 'BEGIN { exit !(q > 0) }' || fail "$at: /slow has no queue time"
    # each endpoint's time is all told: queued, on the CPU, waiting for
    # the GVL, blocked (a fiber suspended too), in GC, and on no core (the
    # OS ran other processes: its %other), which together are its time;
    # the part on no core is what the machine takes (prefork: 4 workers and
    # the client on 2 cores; a quiet machine a few %, 27% of /cpu's under
    # two busy loops), so it is not bounded here — the rest must be told at
    # least half of it, and /cpu's CPU is checked against its work below
    if [ "$how" != prefork ]; then
        for path in /fast /slow /cpu; do
            "$RUBY" -rjson -e 'e = JSON.parse(File.read(ARGV[0])).find { |x| x["name"] == ARGV[1] }
                told = %w[queue_ms cpu_ms gvl_wait_ms blocked_ms gc_ms].sum { |k| e[k] }
                all = told + e["other_ms"]
                exit(e["other_ms"] >= 0 && told >= 0.5 * e["total_ms"] && all >= 0.98 * e["total_ms"] &&
                     all <= 1.02 * e["total_ms"] ? 0 : 1)' req.json "GET $path" \
                || fail "$at: GET $path: its split does not add up to its time: $(cat req.json)"
        done
    fi
    # /cpu: 200 x 20 ms on the CPU, not more (no other request's counted);
    # with threads, its time on the CPU is 90% of the time it held the
    # GVL in the application and was on a core (the OS running other
    # processes, its %other, is the machine's, however busy)
    cpu=$(field req.json "GET /cpu" cpu_ms) total=$(field req.json "GET /cpu" total_ms) wait=$(field req.json "GET /cpu" gvl_wait_ms)
    queued=$(field req.json "GET /cpu" queue_ms) other=$(field req.json "GET /cpu" other_ms)
    awk -v c="$cpu" 'BEGIN { exit !(c >= 200 * 20 * 0.9 && c <= 200 * 20 * 1.25) }' || fail "$at: /cpu: $cpu ms of CPU for 200 x 20 ms"
    if [ "$how" = threads ]; then
        awk -v c="$cpu" -v t="$total" -v w="$wait" -v q="$queued" -v o="$other" 'BEGIN { exit !(c >= 0.9 * (t - w - q - o)) }' \
            || fail "$at: /cpu had $cpu ms of CPU in $total ms ($wait ms waiting for the GVL, $queued ms queued, $other ms on no core)"
    fi
    # the slowest: in order, the first the slowest of all endpoints
    "$ANALYZE" requests --slowest 5 "$dir" >slowest.txt || fail "$at: requests --slowest 5"
    slowest_rows slowest.txt >rows.txt
    max=$("$RUBY" -rjson -e 'print JSON.parse(File.read(ARGV[0])).map { |e| e["max_ms"] }.max.round(2)' req.json)
    awk -v m="$max" 'NR == 1 && $1 + 0.01 < m { exit 1 } NR > 1 && $1 > prev { exit 1 } { prev = $1 } END { exit NR != 5 }' rows.txt \
        || fail "$at: --slowest 5 is not the 5 slowest, slowest first (max $max ms): $(cat slowest.txt)"
    note "$at: the 5 slowest: $(awk '{ printf "%s %s ms; ", $12, $1 }' rows.txt)"
    # the slowest /slow requests: those that slept their 50 ms show it as
    # blocked (the others were queued: behind another's GVL or the one
    # thread, or, on a loaded machine, not given a core by the OS); where
    # no request waits for another's (prefork) hardly any of their time is
    # CPU or waiting for the GVL — all but one at least: a GC of 20 ms
    # falls in one now and then, and its split says so. (Not "90% blocked":
    # a busy host leaves a woken sleeper without a core for a while, time
    # the split rightly calls other — 9.8% and 18.7% of two such requests
    # in one CI run on Ruby 4.0.)
    # (all those of 40 ms or more, slowest first: on a loaded machine,
    # requests the OS left without a core can outlast all 40 sleepers, which
    # the 5 slowest then hold none of — seen once under two busy loops)
    "$ANALYZE" requests --slowest 1000 --endpoint '/slow$' "$dir" >slowest.txt || fail "$at: requests --slowest 1000 --endpoint"
    slowest_rows slowest.txt >rows.txt
    [ "$(awk '$12 == "/slow" { n++ } END { print n + 0 }' rows.txt)" -ge 40 ] || fail "$at: --slowest 1000 --endpoint /slow\$: $(head -c 2000 slowest.txt)"
    # where each that slept blocked longest, in wall and cpu mode alike:
    # its sleep, in the application's line that called it (a fiber's sleep
    # suspends it and blocks nothing)
    if [ "$how" != fibers ]; then
        awk '$1 * $5 / 100 >= 45 && !/\(blocked [0-9.]+ ms in Kernel#sleep at .*server\.rb:[0-9]+\)$/ { exit 1 }' rows.txt \
            || fail "$at: a slow /slow request that slept does not say it blocked longest in Kernel#sleep: $(head -c 2000 slowest.txt)"
    fi
    awk '$1 * $5 / 100 >= 45 { n++ } END { exit n < 36 }' rows.txt || fail "$at: fewer than 36 of the 40 sleeping /slow requests blocked 45 ms or more: $(head -c 2000 slowest.txt)"
    if [ "$how" = prefork ]; then
        awk '$1 * $5 / 100 >= 45 { slept++; if ($3 + $4 > 10) n++ } END { exit n * 10 > slept }' rows.txt \
            || fail "$at: more than one in ten of the /slow requests that slept show more than 10% CPU or GVL wait: $(head -c 2000 slowest.txt)"
    fi
    note "$at: the slowest /slow: $(awk 'NR <= 5 { printf "%s ms, %s%% queued, %s%% blocked; ", $1, $2, $5 }' rows.txt)$(awk '$1 * $5 / 100 >= 45 { n++ } END { printf "%d of the 40 sleepers blocked 45 ms or more", n }' rows.txt)"
    # its own call tree: the samples labelled with its %span
    span=$(awk '$1 * $5 / 100 >= 45 { print $10; exit }' rows.txt)
    [ -n "$span" ] && [ "$span" != - ] || fail "$at: the slowest sleeping /slow request has no %span: $(head -c 2000 slowest.txt)"
    "$ANALYZE" report --tagfocus "%span=^${span//./\\.}\$" --top 20 "$dir" >tree.txt || fail "$at: report --tagfocus %span"
    # ... of one request of one process (a fiber's may have none: it ran
    # its 1 ms between two samples, and slept suspended)
    "$ANALYZE" report --by %pid --tagfocus "%span=^${span//./\\.}\$" "$dir" >pids.txt || fail "$at: report --by %pid"
    [ "$(awk '/By %pid:/ { f = 1; next } f && NF { n++ } END { print n + 0 }' pids.txt)" -le 1 ] \
        || fail "$at: %span=$span selects the samples of more than one process: $(cat pids.txt)"
    if [ "$mode" = wall ] && [ "$how" != fibers ]; then
        sleep_ms=$(awk '/^ Cumulative:/ { c = 1 } c && / Kernel#sleep / { print $1; exit }' tree.txt)
        awk -v s="${sleep_ms:-0}" 'BEGIN { exit !(s >= 45) }' \
            || fail "$at: the slowest sleeping /slow request's own tree lacks its 50 ms Kernel#sleep: $(cat tree.txt)"
        note "$at: the slowest sleeping /slow request's own tree: Kernel#sleep $sleep_ms ms"
    fi
    if [ "$mode" = wall ] && [ "$how" = threads ]; then
        # every request's samples carry its latency class: the 40 sleeping
        # /slow requests (50-100 ms; past 100 ms when the machine is busy)
        # are all of 10-100ms or 100ms-1s
        "$ANALYZE" report --tagfocus '%latency=^(10-100ms|100ms-1s)$' --top 50 "$dir" >latency.txt || fail "--tagfocus %latency"
        slept=$(awk '/^ Cumulative:/ { c = 1 } c && / Kernel#sleep / { gsub(",", "", $1); print $1; exit }' latency.txt)
        awk -v s="${slept:-0}" 'BEGIN { exit !(s >= 40 * 50 * 0.9) }' \
            || fail "$at: the 10-100ms and 100ms-1s requests hold ${slept:-no} ms of Kernel#sleep (40 x 50 ms): $(head -20 latency.txt)"
        note "$at: %latency=10-100ms and 100ms-1s hold $slept ms of Kernel#sleep"
    fi
done
done

# --endpoint and a time profile without requests
"$ANALYZE" requests --json --endpoint '/cpu$' s-threads-wall >only.json || fail "requests --endpoint"
"$RUBY" -rjson -e 'exit(JSON.parse(File.read("only.json")).map { |e| e["name"] } == ["GET /cpu"] ? 0 : 1)' \
    || fail "--endpoint /cpu\$: $(cat only.json)"
profiled plain "$RUBY" -e 1
rc=0; "$ANALYZE" requests plain >none.txt 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "has no requests or jobs" none.txt || fail "requests of a profile without any: rc $rc $(cat none.txt)"

# a Sidekiq-shaped job runner: three threads, two job classes
for mode in wall cpu; do
    RPERF_MODE=$mode profiled "j-$mode" "$RUBY" "$REQ/jobs.rb" || fail "$mode: jobs.rb"
    "$ANALYZE" requests --json "j-$mode" >jobs.json || fail "$mode: requests of the jobs"
    [ "$(field jobs.json FastJob count)" = 300 ] && [ "$(field jobs.json SleepyJob count)" = 60 ] \
        || fail "$mode: job counts: $(cat jobs.json)"
    blocked=$(field jobs.json SleepyJob blocked_ms)
    awk -v b="$blocked" 'BEGIN { exit !(b >= 60 * 20 * 0.9) }' || fail "$mode: SleepyJob blocked $blocked ms for 60 x 20 ms of sleep"
    cpu=$(field jobs.json FastJob cpu_ms)
    awk -v c="$cpu" 'BEGIN { exit !(c >= 300 * 0.9) }' || fail "$mode: FastJob had $cpu ms of CPU for 300 x 1 ms"
    # 360 jobs enqueued at once for 3 workers: on average each waits about
    # half of the ~0.5 s run
    queued=$(awk -v a="$(field jobs.json FastJob queue_ms)" -v b="$(field jobs.json SleepyJob queue_ms)" 'BEGIN { print a + b }')
    awk -v q="$queued" 'BEGIN { exit !(q >= 10000) }' || fail "$mode: the jobs queued only $queued ms in all"
    note "$mode: jobs: FastJob cpu $cpu ms, SleepyJob blocked $blocked ms, queued $queued ms in all"
done

# requests that never end: a thread stuck in one and a fiber abandoned
# inside one are closed at the end and counted; one of a killed thread
# ends with it (its block's ensure), one a fiber abandoned on a thread
# that then ends with the thread; the next request of the thread whose
# fiber was abandoned is its own
cat >stuck.rb <<'RUBY'
require "rperf"
Thread.new { Rperf.request("stuck") { sleep } }
killed = Thread.new { Rperf.request("killed") { sleep } }
sleep 0.2
killed.kill
killed.join
Fiber.new { Rperf.request("abandoned") { Fiber.yield } }.resume
Rperf.request("after") { sleep 0.01 }
Thread.new { Fiber.new { Rperf.request("left") { Fiber.yield } }.resume }.join
sleep 0.3
RUBY
RPERF_MODE=wall RPERF_INTERVAL=1 profiled stuck "$RUBY" stuck.rb || fail "stuck.rb"
"$ANALYZE" requests --json stuck >stuck.json || fail "requests of stuck.rb"
for name in stuck killed abandoned after left; do
    [ "$(field stuck.json "$name" count)" = 1 ] || fail "request '$name' is not counted once: $(cat stuck.json)"
done
blocked=$(field stuck.json stuck blocked_ms)
awk -v b="$blocked" 'BEGIN { exit !(b >= 400) }' || fail "the stuck request's $blocked ms are not blocked"
# closed from another thread, it is not given that thread's CPU time
cpu=$(field stuck.json stuck cpu_ms)
awk -v c="$cpu" 'BEGIN { exit !(c < 20) }' || fail "the stuck request, asleep, had $cpu ms of CPU"
left=$(field stuck.json left max_ms)
awk -v l="$left" 'BEGIN { exit !(l < 100) }' || fail "the request left on an ended thread lasted $left ms: not closed with it"

# Parts in which no request is slow: each endpoint past its warm-up (its
# slowest 1% known), every request of a part faster than that, or a part's
# endpoints arriving after the last slow one it kept. The part's table of
# slow spans then has no entry for them, and the next part must still be
# written (a process killed there would lose every request it served).
cat >quiet.rb <<'RUBY'
require "rperf"
def req(name, seconds) = Rperf.request(name) { sleep(seconds) if seconds > 0 }
150.times { req("warm", 0.002); req("late", 0.002) }
sleep 1.2
3.times do
  40.times { req("warm", 0) }            # none slow: the part keeps no slow span
  sleep 1.1
  req("warm", 0.05)                      # one slow, then an endpoint after it
  40.times { req("late", 0) }
  sleep 1.1
end
puts "served"
RUBY
rc=0; RPERF_MODE=wall RPERF_INTERVAL=1 profiled quiet "$RUBY" quiet.rb >quiet.out 2>quiet.err || rc=$?
[ "$rc" = 0 ] && [ "$(cat quiet.out)" = served ] || fail "quiet parts: status $rc, $(head -c 300 quiet.err)"
"$ANALYZE" requests --json quiet >quiet.json || fail "requests of quiet.rb"
[ "$(field quiet.json warm count)" = 273 ] && [ "$(field quiet.json late count)" = 270 ] ||
    fail "quiet parts: not every request counted once: $(cat quiet.json)"
[ "$(ls quiet | wc -l)" -ge 6 ] || fail "quiet parts: $(ls quiet | wc -l) parts written"

# a bad threshold: one line naming the variable, the program unchanged
rc=0; LD_PRELOAD="$PRELOAD" RPERF_SLOW_MS=fast RPERF_SESSION_DIR=bad "$RUBY" -e 'print :ran' >bad.out 2>bad.err || rc=$?
[ "$rc" = 0 ] && [ "$(cat bad.out)" = ran ] && grep -q 'invalid RPERF_SLOW_MS="fast": expected a number of milliseconds' bad.err \
    && [ "$(wc -l <bad.err)" = 1 ] || fail "RPERF_SLOW_MS=fast: rc $rc $(cat bad.out bad.err)"
note "requests ok"
