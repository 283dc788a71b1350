# The Rack middleware's `endpoint` label names the route once the router
# has found it, as the requests table does: 300 requests to 300 slugs of
# one route (the router's pattern in env, as Sinatra leaves it) are one
# value everywhere labels appear — report --by endpoint, a tag filter,
# pprof's labels — with the time the requests took; a request no route
# matched keeps its path. And the rperf command passes the analyzer's
# selections (--tagfocus, --tagignore, --my-code) on, for report and diff.
. "$(dirname "$0")/lib.sh"

cat >app.rb <<'RUBY'
require "rperf/rack"
require "cpu_burn"
def show_product = burn_cpu(0.002)
app = lambda do |env|
  if env["PATH_INFO"].start_with?("/products/")
    show_product
    env["sinatra.route"] = "GET /products/:sku" # what a router leaves behind
  else
    burn_cpu(0.05)
  end
  [200, {}, ["ok"]]
end
middleware = Rperf::RackMiddleware.new(app)
300.times { |i| middleware.call({"REQUEST_METHOD" => "GET", "PATH_INFO" => "/products/sku-#{i}-x"}) }
middleware.call({"REQUEST_METHOD" => "GET", "PATH_INFO" => "/no/route/here"})
RUBY
profiled s "$RUBY" app.rb 2>err.txt || fail "app.rb: $(cat err.txt)"
"$ANALYZE" report --by endpoint s >by.txt || fail "report --by endpoint"
rows=$(grep -c "GET /products/" by.txt)
[ "$rows" -eq 1 ] || fail "300 slugs of one route gave $rows rows: $(head -20 by.txt)"
grep -q "GET /products/:sku" by.txt || fail "the route is not the label: $(cat by.txt)"
grep -q "GET /no/route/here" by.txt || fail "a request without a route lost its path: $(cat by.txt)"
"$ANALYZE" requests s >requests.txt || fail "requests"
grep -q "GET /products/:sku" requests.txt || fail "requests: $(cat requests.txt)"
# the tag filter by route: the requests' own time
"$ANALYZE" report --tagfocus 'endpoint=^GET /products/:sku$' s >focused.txt || fail "tagfocus by route"
ms=$(sed -n 's/^Total: \([0-9.]*\)ms.*/\1/p' focused.txt)
awk -v ms="$ms" 'BEGIN { exit !(ms > 600 * 0.9 && ms < 600 * 1.5) }' || fail "the route's time is $ms ms; the requests burnt 600 ms"
# pprof carries labels as tags: the same one value
"$ANALYZE" convert --pprof -o p.pb.gz s || fail "convert --pprof"
"$ANALYZE" report --by endpoint p.pb.gz >by_pprof.txt || fail "report --by endpoint of pprof"
[ "$(grep -c "GET /products/" by_pprof.txt)" -eq 1 ] || fail "pprof's labels: $(head -20 by_pprof.txt)"
# the rperf command takes the analyzer's selections: report and diff
"$RPERF_TEST_RPERF" report --text --tagfocus 'endpoint=^GET /no/route/here$' s >cmd.txt || fail "rperf report --tagfocus"
other=$(sed -n 's/^Total: \([0-9.]*\)ms.*/\1/p' cmd.txt)
awk -v ms="$other" 'BEGIN { exit !(ms > 50 * 0.9 && ms < 50 * 1.5) }' || fail "rperf report --tagfocus: $other ms, the request burnt 50"
"$RPERF_TEST_RPERF" report --format table --tagignore 'endpoint=products' s >cmd_table.txt || fail "rperf report --tagignore"
! grep -q "Object#show_product" cmd_table.txt || fail "--tagignore did not leave the products out: $(cat cmd_table.txt)"
"$RPERF_TEST_RPERF" diff --tagfocus 'endpoint=products' s s >cmd_diff.txt || fail "rperf diff --tagfocus"
grep -q "Object#show_product" cmd_diff.txt || fail "rperf diff --tagfocus: $(cat cmd_diff.txt)"
# --my-code, passed on: the middleware's frames are one [rperf] frame
"$RPERF_TEST_RPERF" report --text --my-code s >cmd_mine.txt || fail "rperf report --my-code"
grep -q '\[rperf\]' cmd_mine.txt && grep -q 'Object#show_product' cmd_mine.txt && ! grep -q 'Rperf::RackMiddleware#call' cmd_mine.txt ||
    fail "rperf report --my-code: $(head -20 cmd_mine.txt)"
note "300 slugs: one row, $ms ms under endpoint=GET /products/:sku; rperf report --tagfocus: $other ms"
