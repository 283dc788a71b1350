# Requests and jobs (spans): a Rack application served by WEBrick over
# loopback under the agent, a bounded client sending 2,000 requests with 4
# in flight (requests/server.rb, client.rb), in wall and cpu mode; and a
# Sidekiq-shaped job runner (requests/jobs.rb). rperf-analyze requests must
# count what was sent, time the slow requests as the client saw them
# (from the X-Request-Start the client sends, as a proxy would, to the
# application's return), split each endpoint's time as its work did, and
# list only slow requests as the slowest.
. "$(dirname "$0")/lib.sh"
REQ="$RPERF_TEST_SRC/tests/e2e/requests"
find_webrick_lib
export RUBYLIB="$RACK_LIB:$WEBRICK_LIB:$RUBYLIB"

# field JSON NAME KEY: a key of an endpoint of requests --json
field() {
    "$RUBY" -rjson -e 'e = JSON.parse(File.read(ARGV[0])).find { |x| x["name"] == ARGV[1] }; print e ? e[ARGV[2]] : "none"' "$@"
}

for mode in wall cpu; do
    rm -f port
    RPERF_MODE=$mode profiled "s-$mode" timeout 120 "$RUBY" "$REQ/server.rb" port >server.out 2>&1 &
    server=$!
    timeout 120 "$RUBY" "$REQ/client.rb" port >client.txt 2>client.err || fail "$mode: client: $(cat client.err)"
    wait "$server" || fail "$mode: server: $(cat server.out)"
    "$ANALYZE" requests --json "s-$mode" >req.json 2>req.err || fail "$mode: requests --json: $(cat req.err) (server: $(head -c 600 server.out); $(ls -la s-$mode); $(cat client.txt))"
    "$ANALYZE" requests "s-$mode" >req.txt || fail "$mode: requests"
    note "$mode: $(sed -n 3,6p req.txt | tr -s ' ' | tr '\n' '|')"
    for path in /fast /slow /cpu; do
        sent=$(awk -v p="$path" '$1 == "sent" && $2 == p { print $3 }' client.txt)
        got=$(field req.json "GET $path" count)
        [ "$got" = "$sent" ] || fail "$mode: GET $path counted $got, the client sent $sent"
    done
    # /slow's p99 falls in its 50 ms sleepers, within 10% of what the client
    # saw: the request counts from its X-Request-Start, so the wait before
    # the application got it (WEBrick's threads behind a 20 ms /cpu
    # holding the GVL) is in it, as its queue time; only writing the
    # response is not.
    p99=$(field req.json "GET /slow" p99_ms)
    client=$(awk '$1 == "client_p99" { print $3 }' client.txt)
    queue=$(field req.json "GET /slow" queue_ms)
    note "$mode: /slow p99 $p99 ms in the server, $client ms at the client; its queue time $queue ms in all"
    awk -v s="$p99" -v c="$client" 'BEGIN { exit !(s >= 50 && s >= 0.9 * c && s <= 1.1 * c) }' \
        || fail "$mode: /slow p99 $p99 ms: not its 50 ms sleep and within 10% of the client's $client ms"
    awk -v q="$queue" 'BEGIN { exit !(q > 0) }' || fail "$mode: /slow has no queue time"
    # /cpu: its time on the CPU, of the time it held the GVL in the application
    cpu=$(field req.json "GET /cpu" cpu_ms) total=$(field req.json "GET /cpu" total_ms) wait=$(field req.json "GET /cpu" gvl_wait_ms)
    queued=$(field req.json "GET /cpu" queue_ms)
    awk -v c="$cpu" -v t="$total" -v w="$wait" -v q="$queued" 'BEGIN { exit !(c >= 0.9 * (t - w - q)) }' \
        || fail "$mode: /cpu had $cpu ms of CPU in $total ms ($wait ms waiting for the GVL, $queued ms queued)"
    awk -v c="$cpu" 'BEGIN { exit !(c >= 200 * 20 * 0.9) }' || fail "$mode: /cpu: $cpu ms of CPU for 200 x 20 ms"
    "$ANALYZE" requests --slowest 5 "s-$mode" >slowest.txt || fail "$mode: requests --slowest 5"
    rows=$(awk 'f && NF { n++; if ($NF != "/slow") bad = 1 } /endpoint$/ { f = 1 } END { print n + 0, bad + 0 }' slowest.txt)
    [ "$rows" = "5 0" ] || fail "$mode: --slowest 5 lists other than 5 /slow requests: $(cat slowest.txt)"
    # each slowest one slept its 50 ms: blocked off the GVL
    awk 'f && NF { if ($1 * $5 / 100 < 45) exit 1 } /endpoint$/ { f = 1 }' slowest.txt \
        || fail "$mode: a slow /slow request was blocked less than 45 ms: $(cat slowest.txt)"
    # its own call tree: the samples labelled with its %span (wall time: its sleep)
    span=$(awk 'f && NF { print $9; exit } /endpoint$/ { f = 1 }' slowest.txt)
    [ -n "$span" ] && [ "$span" != - ] || fail "$mode: the slowest request has no %span: $(cat slowest.txt)"
    "$ANALYZE" report --tagfocus "%span=^$span\$" --top 20 "s-$mode" >tree.txt || fail "$mode: report --tagfocus %span"
    if [ "$mode" = wall ]; then
        sleep_ms=$(awk '/^ Cumulative:/ { c = 1 } c && / Kernel#sleep / { print $1; exit }' tree.txt)
        awk -v s="${sleep_ms:-0}" 'BEGIN { exit !(s >= 45) }' \
            || fail "$mode: the slowest request's own tree lacks its 50 ms Kernel#sleep: $(cat tree.txt)"
        note "$mode: the slowest request's own tree: Kernel#sleep $sleep_ms ms"
        # every request's samples carry its latency class: the 40 sleeping
        # /slow requests (50-75 ms) are all of 10-100ms
        "$ANALYZE" report --tagfocus %latency=^10-100ms$ --top 50 "s-$mode" >latency.txt || fail "--tagfocus %latency"
        slept=$(awk '/^ Cumulative:/ { c = 1 } c && / Kernel#sleep / { gsub(",", "", $1); print $1; exit }' latency.txt)
        awk -v s="${slept:-0}" 'BEGIN { exit !(s >= 40 * 50 * 0.9) }' \
            || fail "$mode: the 10-100ms requests hold ${slept:-no} ms of Kernel#sleep (40 x 50 ms): $(head -20 latency.txt)"
        note "$mode: %latency=10-100ms holds $slept ms of Kernel#sleep"
    fi
done

# --endpoint and a time profile without requests
"$ANALYZE" requests --json --endpoint '/cpu$' s-wall >only.json || fail "requests --endpoint"
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
# ends with it (its block's ensure)
cat >stuck.rb <<'RUBY'
require "rperf"
Thread.new { Rperf.request("stuck") { sleep } }
killed = Thread.new { Rperf.request("killed") { sleep } }
sleep 0.2
killed.kill
killed.join
Fiber.new { Rperf.request("abandoned") { Fiber.yield } }.resume
sleep 0.3
RUBY
RPERF_MODE=wall RPERF_INTERVAL=1 profiled stuck "$RUBY" stuck.rb || fail "stuck.rb"
"$ANALYZE" requests --json stuck >stuck.json || fail "requests of stuck.rb"
for name in stuck killed abandoned; do
    [ "$(field stuck.json "$name" count)" = 1 ] || fail "request '$name' is not counted once: $(cat stuck.json)"
done
blocked=$(field stuck.json stuck blocked_ms)
awk -v b="$blocked" 'BEGIN { exit !(b >= 400) }' || fail "the stuck request's $blocked ms are not blocked"

# a bad threshold: one line naming the variable, the program unchanged
rc=0; LD_PRELOAD="$PRELOAD" RPERF_SLOW_MS=fast RPERF_SESSION_DIR=bad "$RUBY" -e 'print :ran' >bad.out 2>bad.err || rc=$?
[ "$rc" = 0 ] && [ "$(cat bad.out)" = ran ] && grep -q 'invalid RPERF_SLOW_MS="fast": expected a number of milliseconds' bad.err \
    && [ "$(wc -l <bad.err)" = 1 ] || fail "RPERF_SLOW_MS=fast: rc $rc $(cat bad.out bad.err)"
note "requests ok"
