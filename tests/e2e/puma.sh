# Puma from RubyGems (tests/gems.txt), as users run it, under the agent:
# single mode with threads and cluster mode (workers, preload_app!, a
# phased restart), with the agent preloaded and in parts, and rperf attach
# into a running worker and into the master. The server answers as it does
# without the agent (statuses and bodies), shuts down as fast on SIGTERM,
# and the session holds the master and every worker — the replaced ones
# too — with the time the requests took.
. "$(dirname "$0")/lib.sh"
use_test_gems puma
RPERF="$RPERF_TEST_SRC/scripts/rperf"
export RPERF_AGENT=$RPERF_TEST_AGENT RPERF_ANALYZE=$ANALYZE RPERF_ATTACH=$RPERF_TEST_ATTACH
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"' EXIT

cat >config.ru <<'RUBY'
require "cpu_burn"
run(proc do |env|
  case env["PATH_INFO"]
  when "/cpu" then burn_cpu(0.02); [200, { "content-type" => "text/plain" }, ["burned\n"]]
  when "/sleep" then sleep(0.02); [200, { "content-type" => "text/plain" }, ["slept\n"]]
  else [404, { "content-type" => "text/plain" }, ["not here\n"]]
  end
end)
RUBY
cat >client.rb <<'RUBY'
# client.rb PORT N: N rounds of GET /cpu, /sleep, /nope; prints each status and body.
require "net/http"
port, n = ARGV.map(&:to_i)
# A connection per round, so that every worker of a cluster gets requests.
n.times do
  Net::HTTP.start("127.0.0.1", port) do |http|
    %w[/cpu /sleep /nope].each { |path| r = http.get(path); print "#{r.code} #{r.body}" }
  end
end
RUBY

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
    local t0 t1 i
    t0=$(date +%s%N)
    kill -TERM "$server"
    for i in $(seq 200); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
    ! kill -0 "$server" 2>/dev/null ||
        fail "puma ($server_name) did not stop within 20 s of SIGTERM: $(ps -o pid,stat,wchan:20,args --ppid "$server" -p "$server" | tr '\n' '|')"
    wait "$server" 2>/dev/null || true
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}

# --- single mode, 4 threads: the same answers, the requests' time ------------
serve plain -- -t 4:4
"$RUBY" client.rb "$port" 20 >plain.txt
plain_stop=$(stop_server)
serve single LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/single" RPERF_QUIET=1 -- -t 4:4
"$RUBY" client.rb "$port" 20 >single.txt
single_stop=$(stop_server)
cmp -s plain.txt single.txt || fail "single mode answers differently with the agent: $(diff plain.txt single.txt | head -5)"
[ "$single_stop" -le $((plain_stop + 2000)) ] || fail "SIGTERM took ${single_stop} ms with the agent, ${plain_stop} ms without"
profile=$(only_profile "$WORK/single")
burn=$(check weight "$profile" "Object#burn_cpu")
note "single mode: 60 answers as without the agent; SIGTERM ${single_stop} ms (${plain_stop} without); burn_cpu $((burn / 1000000)) ms (20 requests of 20 ms)"
at_least "$burn" 320000000 || fail "burn_cpu has $((burn / 1000000)) ms, 20 requests burned 400"

# --- cluster, 2 workers, preload_app!: master and workers in the session -----
serve preload LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/preload" RPERF_QUIET=1 -- -w 2 -t 2:2 --preload
"$RUBY" client.rb "$port" 20 >preload.txt
stop_server >/dev/null
cmp -s plain.txt preload.txt || fail "cluster mode answers differently: $(diff plain.txt preload.txt | head -5)"
files=$(ls "$WORK"/preload/profile-*.json.gz | wc -l)
[ "$files" = 3 ] || fail "preload_app!: $files profiles, expected the master and 2 workers: $(ls "$WORK/preload")"
burn=$("$ANALYZE" report --top 200 "$WORK/preload" | awk '/Cumulative:/ { c = 1 } c && $4 == "Object#burn_cpu" { gsub(",", "", $1); print $1 }')
note "cluster, preload_app!: 3 profiles (master, 2 workers); burn_cpu ${burn:-0} ms in the workers"
at_least "${burn:-0}" 320 || fail "burn_cpu has ${burn:-0} ms over the workers, 20 requests burned 400"

# --- cluster, a phased restart (SIGUSR1), in parts: every worker kept --------
serve phased LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/phased" RPERF_QUIET=1 RPERF_INTERVAL=1 -- -w 2 -t 2:2
"$RUBY" client.rb "$port" 5 >/dev/null
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
"$RUBY" client.rb "$port" 5 >/dev/null
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
"$RUBY" client.rb "$port" 10 >forked.txt
stop_server >/dev/null
cmp -s forked.txt <(head -n 30 plain.txt) || fail "fork_worker answers differently: $(diff forked.txt <(head -n 30 plain.txt) | head -5)"
files=$(ls "$WORK"/forked/profile-*.json.gz | wc -l)
[ "$files" -ge 3 ] || fail "fork_worker: $files profiles, expected the master and the workers: $(ls "$WORK/forked")"
note "fork_worker: $files profiles (master, worker 0 and what it forked)"

# --- a dormant agent in every process, driven by rperf ctl -------------------
serve dormant LD_PRELOAD="$PRELOAD" RPERF_ENABLED=0 RPERF_SESSION_DIR="$WORK/dormant" RPERF_QUIET=1 -- -w 2 -t 2:2
worker=$(workers_of "$server" | cut -d' ' -f1)
# An idle worker runs no Ruby code, and a command waits for a safepoint:
# requests keep both workers busy while it is given.
("$RUBY" client.rb "$port" 20 >/dev/null) &
"$RPERF" ctl "$worker" start 2>ctl.err || fail "ctl start in worker $worker: $(cat ctl.err)"
wait $!
"$RUBY" client.rb "$port" 20 >dormant.txt
"$RPERF" ctl "$worker" stop -o "$WORK/ctl.json.gz" 2>ctl-stop.err || fail "ctl stop: $(cat ctl-stop.err)"
stop_server >/dev/null
cmp -s dormant.txt plain.txt || fail "with a dormant agent and a ctl recording, answers differ: $(diff dormant.txt plain.txt | head -5)"
"$ANALYZE" report "$WORK/ctl.json.gz" >ctl.txt || fail "report of the ctl recording"
grep -q "Object#burn_cpu\|Kernel#sleep" ctl.txt || fail "the ctl recording of worker $worker shows no request: $(head -12 ctl.txt)"
[ -z "$(ls -A "$WORK/dormant" 2>/dev/null)" ] || fail "a dormant agent wrote files: $(ls -A "$WORK/dormant")"
note "dormant agent, rperf ctl start/stop in worker $worker: its profile shows the requests; nothing else written"

# --- rperf attach into a running worker, then into the master --------------------
serve attach -- -w 2 -t 2:2
worker=$(workers_of "$server" | cut -d' ' -f1)
("$RUBY" client.rb "$port" 40 >attach.txt) &
client=$!
"$RPERF" attach -d 2 -o "$WORK/worker.json.gz" "$worker" 2>attach.err || fail "rperf attach into worker $worker: $(cat attach.err)"
wait "$client" || fail "the client failed while a worker was attached"
"$RPERF" attach -d 1 -o "$WORK/master.json.gz" "$server" 2>attach-master.err ||
    fail "rperf attach into the master $server: $(cat attach-master.err)"
"$RUBY" client.rb "$port" 3 >after.txt
stop_server >/dev/null
[ "$(grep -c '^200 ' attach.txt)" = 80 ] && [ "$(grep -c '^404 ' attach.txt)" = 40 ] ||
    fail "answers while attached: $(sort attach.txt | uniq -c | head -5)"
cmp -s after.txt <(head -n 9 plain.txt) || fail "answers after the attaches differ: $(diff after.txt <(head -n 9 plain.txt) | head -5)"
"$ANALYZE" report "$WORK/worker.json.gz" >worker.txt || fail "report of the attached worker"
grep -q "Object#burn_cpu" worker.txt || grep -q "Kernel#sleep" worker.txt ||
    fail "the attached worker's profile shows no request: $(head -12 worker.txt)"
"$ANALYZE" report "$WORK/master.json.gz" >/dev/null || fail "report of the attached master"
note "rperf attach into worker $worker (2 s, requests served meanwhile) and into the master: profiles written, the server serves on"
