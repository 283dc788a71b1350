# A small real Rails application (servers/rails_app.ru: railties,
# actionpack and activerecord on SQLite, from RubyGems) on Puma with four
# threads, under the agent in wall mode, against the same application
# without it. rperf-analyze requests must name the requests by their
# route — 300 different slugs are one endpoint, "GET /posts/:slug" — and
# count each once; agree with Rails' own instrumentation
# (process_action.action_controller) and with the client on a sleeping
# action's time; and split a sleeping action's time as blocked and a
# computing one's as CPU. The server answers as without the agent. And
# Sinatra's router names its routes the same way.
. "$(dirname "$0")/lib.sh"
. "$RPERF_TEST_SRC/tests/e2e/servers/rails_serve.sh"

serve plain
"$RUBY" "$SERVERS/rails_client.rb" "$port" plain.lat >plain.txt || fail "plain: the client failed"
stop_server plain
[ "$(grep -c '^200 body ' plain.txt)" = 300 ] || fail "plain: not 300 posts: $(sort plain.txt | uniq -c | sort -rn | head -3)"

serve agent LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/session" RPERF_MODE=wall RPERF_QUIET=1
"$RUBY" "$SERVERS/rails_client.rb" "$port" agent.lat >agent.txt || fail "agent: the client failed"
curl -s "http://127.0.0.1:$port/rails_times" >rails_times.txt || fail "GET /rails_times"
stop_server agent
cmp -s plain.txt agent.txt || fail "the application answers differently under the agent: $(diff plain.txt agent.txt | head -5)"

"$ANALYZE" requests --json "$WORK/session" >req.json 2>req.err || fail "requests --json: $(cat req.err)"
field() {
    "$RUBY" -rjson -e 'e = JSON.parse(File.read(ARGV[0])).find { |x| x["name"] == ARGV[1] }; print e ? e[ARGV[2]] : "none"' "$@"
}
for route in "GET /posts/:slug 300" "GET /cpu 40" "GET /slow 40"; do
    name=${route% *} sent=${route##* }
    got=$(field req.json "$name" count)
    [ "$got" = "$sent" ] || fail "$name counted $got times, $sent were sent: $("$RUBY" -rjson -e 'puts JSON.parse(File.read(ARGV[0])).map { |e| "#{e["name"]} #{e["count"]}" }.first(8)' req.json)"
done
! grep -q 'post-number' req.json || fail "an endpoint is named by its slug: $(grep -o '"name":"[^"]*post-number[^"]*"' req.json | head -3)"
# the endpoint label names the route too: one row for the 300 slugs
"$ANALYZE" report --by endpoint "$WORK/session" >by.txt || fail "report --by endpoint"
[ "$(grep -c 'GET /posts/' by.txt)" -eq 1 ] && grep -q 'GET /posts/:slug' by.txt \
    || fail "report --by endpoint: $(grep 'GET /posts/' by.txt | head -5)"

# --my-code: the application's code first, each run of the server's and
# the framework's frames one frame named for the library it began in;
# nothing lost
"$ANALYZE" convert --collapsed -o all.txt "$WORK/session" && "$ANALYZE" convert --collapsed --my-code -o mine.txt "$WORK/session" ||
    fail "convert --collapsed --my-code"
sum_weights() { awk '{ s += $NF } END { printf "%d\n", s }' "$1"; }
[ "$(sum_weights all.txt)" = "$(sum_weights mine.txt)" ] || fail "--my-code changed the total: $(sum_weights all.txt) -> $(sum_weights mine.txt)"
grep 'WorkController#slow' mine.txt >slow_paths.txt || fail "--my-code: no path through WorkController#slow"
! grep -v '^\[puma [0-9.]*\];WorkController#slow[; ]' slow_paths.txt >other_paths.txt ||
    fail "--my-code: the action is not the server's run's child: $(head -3 other_paths.txt)"
# --hide-idle: idle threads and the others' waiting for work outside
# requests left out, and said; every request's time stays
"$ANALYZE" report --hide-idle "$WORK/session" >busy.txt 2>busy.err || fail "report --hide-idle: $(cat busy.err)"
grep -q 'waiting for work outside requests' busy.err || fail "--hide-idle does not say what waiting it left out: $(cat busy.err)"
total_of() { sed -n 's/^Total: \([0-9.]*\)ms.*/\1/p' "$1"; }
"$ANALYZE" report "$WORK/session" >whole.txt && "$ANALYZE" report --tagfocus '%latency=.' "$WORK/session" >inside.txt
awk -v b="$(total_of busy.txt)" -v w="$(total_of whole.txt)" -v i="$(total_of inside.txt)" 'BEGIN { exit !(b >= i && b < w) }' ||
    fail "--hide-idle keeps $(total_of busy.txt) ms of $(total_of whole.txt); inside requests: $(total_of inside.txt) ms"
note "--my-code: GET /slow's paths are [puma];WorkController#slow;...; --hide-idle keeps $(total_of busy.txt) of $(total_of whole.txt) ms ($(total_of inside.txt) inside requests)"

# /slow (a 50 ms sleep): the median in the middleware at least what Rails
# measured of the action, and no more than the client saw
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ours=$(field req.json "GET /slow" p50_ms)
rails=$(awk '$1 == "WorkController#slow" { print $2 }' rails_times.txt | median)
client=$(awk '$1 == "/slow" { print $2 }' agent.lat | median)
[ -n "$rails" ] || fail "Rails' instrumentation measured no WorkController#slow: $(head -5 rails_times.txt)"
awk -v o="$ours" -v r="$rails" -v c="$client" 'BEGIN { exit !(o >= 50 && o >= r - 0.5 && o <= c + 0.5) }' ||
    fail "GET /slow p50: $ours ms under the agent, Rails measured $rails ms, the client $client ms"
# the split: /slow blocked for its sleeps, /cpu on the CPU for its burns
# (and Rails' own work), every endpoint's time told but for what the
# machine took (%other) — within 5%: CPU a thread uses off the GVL (SQLite
# releases it for its queries) is both on a core and off the GVL. What the
# machine took grows with its load (time holding the GVL without a core:
# 35% of /cpu's with six busy processes on the 2 cores): less than 60%.
blocked=$(field req.json "GET /slow" blocked_ms)
awk -v b="$blocked" 'BEGIN { exit !(b >= 0.9 * 40 * 50) }' || fail "GET /slow blocked $blocked ms; its 40 requests slept 50 ms each"
cpu=$(field req.json "GET /cpu" cpu_ms)
awk -v c="$cpu" 'BEGIN { exit !(c >= 0.9 * 40 * 20 && c <= 40 * (20 + 15)) }' || fail "GET /cpu $cpu ms on the CPU; its 40 requests burned 20 ms each"
for name in "GET /posts/:slug" "GET /cpu" "GET /slow"; do
    "$RUBY" -rjson -e 'e = JSON.parse(File.read(ARGV[0])).find { |x| x["name"] == ARGV[1] }
        told = %w[queue_ms cpu_ms gvl_wait_ms blocked_ms gc_ms other_ms].sum { |k| e[k] }
        exit((told - e["total_ms"]).abs <= 0.05 * e["total_ms"] && e["other_ms"] <= 0.6 * e["total_ms"] ? 0 : 1)' req.json "$name" ||
        fail "$name: its split does not add up to its time: $(cat req.json)"
done
note "Rails on Puma, wall mode: 300 slugs counted as one endpoint GET /posts/:slug (300), /cpu 40, /slow 40; /slow p50 $ours ms (Rails $rails ms, client $client ms), blocked $blocked ms; /cpu $cpu ms of CPU"

# Sinatra's router says its route too (sinatra.route): 50 slugs, one
# endpoint; a path no route matched keeps its own name.
use_test_gems sinatra
cat >sinatra_app.rb <<'RUBY'
require "sinatra/base"
require "rperf/rack"
class Blog < Sinatra::Base
  get("/posts/:slug") { "post #{params[:slug]}\n" }
end
app = Rperf::RackMiddleware.new(Blog)
request = Rack::MockRequest.new(app)
50.times { |i| request.get("/posts/slug-#{i}-#{"x" * i}") }
request.get("/nowhere")
RUBY
profiled sinatra "$RUBY" sinatra_app.rb || fail "the Sinatra application failed"
"$ANALYZE" requests --json sinatra >sinatra.json || fail "requests --json of the Sinatra run"
[ "$(field sinatra.json "GET /posts/:slug" count)" = 50 ] && [ "$(field sinatra.json "GET /nowhere" count)" = 1 ] ||
    fail "Sinatra's routes: $(cat sinatra.json)"
note "Sinatra: 50 slugs counted as GET /posts/:slug, an unrouted path under its own"

# Grape's too (grape.routing_args' route_info), in a namespace, without its
# format suffix.
use_test_gems grape
cat >grape_app.rb <<'RUBY'
require "grape"
require "rperf/rack"
class Shop < Grape::API
  format :txt
  namespace(:v1) { get("/items/:id") { "item #{params[:id]}" } }
end
app = Rperf::RackMiddleware.new(Shop)
request = Rack::MockRequest.new(app)
40.times { |i| request.get("/v1/items/sku-#{i}") }
request.get("/nowhere")
RUBY
profiled grape "$RUBY" grape_app.rb || fail "the Grape application failed"
"$ANALYZE" requests --json grape >grape.json || fail "requests --json of the Grape run"
[ "$(field grape.json "GET /v1/items/:id" count)" = 40 ] && [ "$(field grape.json "GET /nowhere" count)" = 1 ] ||
    fail "Grape's routes: $(cat grape.json)"
note "Grape: 40 skus counted as GET /v1/items/:id, an unrouted path under its own"
