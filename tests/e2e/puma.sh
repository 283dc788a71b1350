# Puma from RubyGems (tests/gems.txt), as users run it, under the agent:
# single mode with threads and cluster mode (workers, preload_app!, a
# phased restart), with the agent preloaded and in parts, and rperf attach
# into a running worker and into the master. The server answers as it does
# without the agent (statuses and bodies), shuts down as fast on SIGTERM,
# and the session holds the master and every worker — the replaced ones
# too — with the time the requests took: every request counted once, its
# latency against the client's, a sleeping endpoint blocked and a
# computing one on the CPU (Rperf::RackMiddleware in servers/app.ru).
# Every server, with or without the agent, loads servers/puma_trap_safe.rb:
# a Ruby 3.4.5 bug otherwise hangs a worker at SIGTERM now and then.
. "$(dirname "$0")/lib.sh"
use_test_gems puma
RPERF="$RPERF_TEST_RPERF"
export RPERF_AGENT=$RPERF_TEST_AGENT RPERF_ATTACH=$RPERF_TEST_ATTACH
at_exit 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true'

SERVERS="$RPERF_TEST_SRC/tests/e2e/servers"
cp "$SERVERS/app.ru" config.ru
export RUBYLIB="$SERVERS:$RUBYLIB"
# client PORT ROUNDS [LATENCIES]: statuses and bodies on stdout
client() { "$RUBY" "$SERVERS/client.rb" "$@"; }

# requests_field JSON NAME KEY: a figure of an endpoint of requests --json
requests_field() {
    "$RUBY" -rjson -e 'e = JSON.parse(File.read(ARGV[0])).find { |x| x["name"] == ARGV[1] }; print e ? e[ARGV[2]] : "none"' "$@"
}

# client_p50 LATENCIES PATH: the median the client saw, in ms
client_p50() {
    awk -v p="$2" '$1 == p { print $2 }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# check_requests WHAT DIR LATENCIES ROUNDS: rperf-analyze requests over the
# session counts every request the client sent, once, whichever process
# served it; /sleep's median is its 20 ms sleep and no more than the client
# saw; /sleep is blocked for its sleep, /cpu on the CPU for its burn.
check_requests() {
    local what=$1 dir=$2 lat=$3 rounds=$4 path got
    "$ANALYZE" requests --json "$dir" >"$what.req.json" 2>"$what.req.err" || fail "$what: requests --json: $(cat "$what.req.err")"
    local sent
    for path in /cpu /sleep /nope; do
        sent=$rounds
        [ "$path" != /nope ] || sent=$((rounds + 1)) # and serve's readiness probe
        got=$(requests_field "$what.req.json" "GET $path" count)
        [ "$got" = "$sent" ] || fail "$what: GET $path counted $got times, it was sent $sent times: $(cat "$what.req.json")"
    done
    local p50 client cpu blocked
    p50=$(requests_field "$what.req.json" "GET /sleep" p50_ms)
    client=$(client_p50 "$lat" /sleep)
    awk -v s="$p50" -v c="$client" 'BEGIN { exit !(s >= 19.5 && s <= c + 0.5) }' ||
        fail "$what: GET /sleep p50 $p50 ms in the server, $client ms at the client (a 20 ms sleep)"
    blocked=$(requests_field "$what.req.json" "GET /sleep" blocked_ms)
    awk -v b="$blocked" -v n="$rounds" 'BEGIN { exit !(b >= 0.9 * 20 * n) }' ||
        fail "$what: GET /sleep blocked $blocked ms in all, its $rounds sleeps 20 ms each"
    cpu=$(requests_field "$what.req.json" "GET /cpu" cpu_ms)
    awk -v c="$cpu" -v n="$rounds" 'BEGIN { exit !(c >= 0.9 * 20 * n && c <= 1.3 * 20 * n) }' ||
        fail "$what: GET /cpu $cpu ms on the CPU in all, its $rounds burns 20 ms each"
    note "$what: $rounds requests of each endpoint counted once; /sleep p50 $p50 ms (client $client ms), blocked $blocked ms; /cpu $cpu ms of CPU"
}

# serve NAME ENV... -- PUMA_ARGS...: starts puma in the background (its pid
# in $server, its port in $port), waits until it answers.
serve() {
    local name=$1 envs=()
    shift
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    port=$(free_port)
    server_name=$name
    env "${envs[@]}" "$RUBY" "$GEM_BIN/puma" -b "tcp://127.0.0.1:$port" "$@" config.ru >"$WORK/$name.out" 2>&1 &
    server=$!
    wait_http "http://127.0.0.1:$port/nope" 30
}

# stop_server: SIGTERM; prints the ms it took to exit, fails past 20 s.
stop_server() {
    local t0 t1
    t0=$(date +%s%N)
    terminate "$server" 20 "puma ($server_name)"
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}

# --- single mode, 4 threads: the same answers, the requests' time ------------
serve plain -- -t 4:4
client "$port" 20 >plain.txt
plain_stop=$(stop_server)
serve single LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/single" RPERF_QUIET=1 -- -t 4:4
client "$port" 20 single.lat >single.txt
single_stop=$(stop_server)
cmp -s plain.txt single.txt || fail "single mode answers differently with the agent: $(diff plain.txt single.txt | head -5)"
[ "$single_stop" -le $((plain_stop + 2000)) ] || fail "SIGTERM took ${single_stop} ms with the agent, ${plain_stop} ms without"
profile=$(only_profile "$WORK/single")
burn=$(check weight "$profile" "Object#burn_cpu")
check_requests "single mode" "$WORK/single" single.lat 20
note "single mode: 60 answers as without the agent; SIGTERM ${single_stop} ms (${plain_stop} without); burn_cpu $((burn / 1000000)) ms (20 requests of 20 ms)"
at_least "$burn" 320000000 || fail "burn_cpu has $((burn / 1000000)) ms, 20 requests burned 400"

# --- cluster, 2 workers, preload_app!: master and workers in the session -----
serve preload LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/preload" RPERF_QUIET=1 -- -w 2 -t 2:2 --preload
client "$port" 20 preload.lat >preload.txt
stop_server >/dev/null
cmp -s plain.txt preload.txt || fail "cluster mode answers differently: $(diff plain.txt preload.txt | head -5)"
files=$(ls "$WORK"/preload/profile-*.json.gz | wc -l)
[ "$files" = 3 ] || fail "preload_app!: $files profiles, expected the master and 2 workers: $(ls "$WORK/preload")"
burn=$("$ANALYZE" report --top 200 "$WORK/preload" | awk '/Cumulative:/ { c = 1 } c && $4 == "Object#burn_cpu" { gsub(",", "", $1); print $1 }')
note "cluster, preload_app!: 3 profiles (master, 2 workers); burn_cpu ${burn:-0} ms in the workers"
at_least "${burn:-0}" 320 || fail "burn_cpu has ${burn:-0} ms over the workers, 20 requests burned 400"
check_requests "cluster, preload_app!" "$WORK/preload" preload.lat 20

# --- cluster, a phased restart (SIGUSR1), in parts: every worker kept --------
serve phased LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/phased" RPERF_QUIET=1 RPERF_INTERVAL=1 -- -w 2 -t 2:2
client "$port" 5 >/dev/null
workers_of() { { pgrep -P "$1" || true; } | sort | tr '\n' ' '; } # none for a moment in a restart
first_workers=$(workers_of "$server")
kill -USR1 "$server"
for i in $(seq 300); do
    now_workers=$(workers_of "$server")
    [ -n "$now_workers" ] && [ "$(comm -12 <(tr ' ' '\n' <<<"$first_workers" | sed '/^$/d') <(tr ' ' '\n' <<<"$now_workers" | sed '/^$/d') | wc -l)" = 0 ] &&
        [ "$(wc -w <<<"$now_workers")" = 2 ] && break
    sleep 0.1
done
[ "$i" -lt 300 ] || fail "the phased restart did not replace both workers: $first_workers → $now_workers"
client "$port" 5 >/dev/null
sleep 1.2 # a part of the new workers
stop_server >/dev/null
pids=$(ls "$WORK"/phased/profile-*.json.gz | sed 's/.*profile-\([0-9]*\)-.*/\1/' | sort -u | tr '\n' ' ')
for w in $first_workers $now_workers "$server"; do
    grep -qw "$w" <<<"$pids" || fail "phased restart: process $w has no profile (profiles of: $pids)"
done
"$ANALYZE" stat "$WORK/phased" >phased.txt || fail "stat of the phased run"
note "phased restart in parts: profiles of master $server, workers $first_workers and $now_workers"

# --- fork_worker: workers forked from worker 0, all in the session -----------
serve forked LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/forked" RPERF_QUIET=1 -- -w 2 -t 2:2 --fork-worker
client "$port" 10 >forked.txt
stop_server >/dev/null
cmp -s forked.txt <(head -n 30 plain.txt) || fail "fork_worker answers differently: $(diff forked.txt <(head -n 30 plain.txt) | head -5)"
files=$(ls "$WORK"/forked/profile-*.json.gz | wc -l)
[ "$files" -ge 3 ] || fail "fork_worker: $files profiles, expected the master and the workers: $(ls "$WORK/forked")"
note "fork_worker: $files profiles (master, worker 0 and what it forked)"

# --- a dormant agent in every process, driven by rperf ctl -------------------
serve dormant LD_PRELOAD="$PRELOAD" RPERF_ENABLED=0 RPERF_SESSION_DIR="$WORK/dormant" RPERF_QUIET=1 -- -w 2 -t 2:2
worker=$(workers_of "$server" | cut -d' ' -f1)
# A command waits for a safepoint: an idle worker (no request reaches it)
# takes it when Puma's own threads next run Ruby code (its worker-check
# thread does, every second) — given here with no load at all.
sleep 1
t0=$(date +%s%N)
"$RPERF" ctl "$worker" start 2>ctl.err || fail "ctl start in the idle worker $worker: $(cat ctl.err)"
took=$((($(date +%s%N) - t0) / 1000000))
client "$port" 20 >dormant.txt
sleep 1
"$RPERF" ctl "$worker" stop -o "$WORK/ctl.json.gz" 2>ctl-stop.err || fail "ctl stop in the idle worker: $(cat ctl-stop.err)"
stop_server >/dev/null
cmp -s dormant.txt plain.txt || fail "with a dormant agent and a ctl recording, answers differ: $(diff dormant.txt plain.txt | head -5)"
"$ANALYZE" report "$WORK/ctl.json.gz" >ctl.txt || fail "report of the ctl recording"
grep -q "Object#burn_cpu\|Kernel#sleep" ctl.txt || fail "the ctl recording of worker $worker shows no request: $(head -12 ctl.txt)"
[ -z "$(ls -A "$WORK/dormant" 2>/dev/null)" ] || fail "a dormant agent wrote files: $(ls -A "$WORK/dormant")"
note "dormant agent, rperf ctl start/stop in the idle worker $worker (start answered in $took ms): its profile shows the requests; nothing else written"

# --- rperf attach into a running worker, then into the master --------------------
serve attach -- -w 2 -t 2:2
worker=$(workers_of "$server" | cut -d' ' -f1)
(client "$port" 40 >attach.txt) &
client=$!
"$RPERF" attach -d 2 -o "$WORK/worker.json.gz" "$worker" 2>attach.err || fail "rperf attach into worker $worker: $(cat attach.err)"
wait "$client" || fail "the client failed while a worker was attached"
"$RPERF" attach -d 1 -o "$WORK/master.json.gz" "$server" 2>attach-master.err ||
    fail "rperf attach into the master $server: $(cat attach-master.err)"
client "$port" 3 >after.txt
stop_server >/dev/null
[ "$(grep -c '^200 ' attach.txt)" = 80 ] && [ "$(grep -c '^404 ' attach.txt)" = 40 ] ||
    fail "answers while attached: $(sort attach.txt | uniq -c | head -5)"
cmp -s after.txt <(head -n 9 plain.txt) || fail "answers after the attaches differ: $(diff after.txt <(head -n 9 plain.txt) | head -5)"
"$ANALYZE" report "$WORK/worker.json.gz" >worker.txt || fail "report of the attached worker"
grep -q "Object#burn_cpu" worker.txt || grep -q "Kernel#sleep" worker.txt ||
    fail "the attached worker's profile shows no request: $(head -12 worker.txt)"
"$ANALYZE" report "$WORK/master.json.gz" >/dev/null || fail "report of the attached master"
note "rperf attach into worker $worker (2 s, requests served meanwhile) and into the master: profiles written, the server serves on"
