# rperf report --port/--host (the gem 0.11's options): the viewer served
# over HTTP, for a browser through SSH port forwarding or on another
# machine. GET / answers the page (what convert --html writes for the
# file), HEAD its headers, another path 404, another method 405; a port
# already taken and a --port out of range are said (status 1); a
# host other than the loopback is warned about; SIGINT (Ctrl-C) stops it
# with status 0 and leaves no page behind.
. "$(dirname "$0")/lib.sh"
RPERF="$RPERF_TEST_RPERF"
export TMPDIR="$WORK/tmp"
mkdir "$TMPDIR"

record_hot_method p.json.gz 0.1

port=$(free_port)
"$RPERF" report --port "$port" p.json.gz 2>serve.err &
server=$!
wait_http "http://127.0.0.1:$port/" 20
grep -q "serving the viewer at http://localhost:$port/ (bound to localhost)" serve.err || fail "where is not said: $(cat serve.err)"
! grep -q WARNING serve.err || fail "warned about the loopback: $(cat serve.err)"
curl -s -D head.txt "http://127.0.0.1:$port/" >page.html || fail "GET /"
grep -q '^HTTP/1.1 200' head.txt && grep -qi '^content-type: text/html; charset=utf-8' head.txt || fail "GET /: $(cat head.txt)"
grep -q '<!DOCTYPE html>' page.html && grep -q 'Object#hot_method' page.html || fail "GET / is not the page: $(head -c 300 page.html)"
"$ANALYZE" convert --html -o direct.html p.json.gz || fail "convert --html"
[ "$(wc -c <page.html)" = "$(wc -c <direct.html)" ] || fail "the page served ($(wc -c <page.html) bytes) is not convert --html's ($(wc -c <direct.html))"
length=$(curl -s -I "http://127.0.0.1:$port/" | tr -d '\r' | awk -F': ' 'tolower($1) == "content-length" { print $2 }')
[ "$length" = "$(wc -c <page.html)" ] || fail "HEAD: content-length $length"
status() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
[ "$(status "http://127.0.0.1:$port/nothing")" = 404 ] || fail "another path: $(status "http://127.0.0.1:$port/nothing")"
[ "$(status -X POST "http://127.0.0.1:$port/")" = 405 ] || fail "POST: $(status -X POST "http://127.0.0.1:$port/")"

# the same port again: said, status 1
rc=0
"$RPERF" report --port "$port" p.json.gz 2>taken.err || rc=$?
[ "$rc" = 1 ] && grep -q "port $port is already in use (choose another --port)" taken.err || fail "a taken port: status $rc, $(cat taken.err)"

# Ctrl-C: status 0, the page's directory gone
kill -INT "$server"
rc=0
wait "$server" || rc=$?
[ "$rc" = 0 ] && grep -q "stopped serving" serve.err || fail "SIGINT: status $rc, $(cat serve.err)"
[ -z "$(find "$TMPDIR" -name '*.html')" ] || fail "a page left behind: $(find "$TMPDIR" -name '*.html')"

# --host other than the loopback: warned; --port out of range: a usage error
port=$(free_port)
"$RPERF" report --host 0.0.0.0 --port "$port" p.json.gz 2>any.err &
server=$!
wait_http "http://127.0.0.1:$port/" 20
grep -q "WARNING: the viewer has no authentication" any.err || fail "no warning for 0.0.0.0: $(cat any.err)"
kill -TERM "$server"
wait "$server" || fail "SIGTERM: status $?"
rc=0
"$RPERF" report --port 70000 p.json.gz 2>bad.err || rc=$?
[ "$rc" = 1 ] && grep -q -- "--port must be 1..65535, got '70000'" bad.err || fail "--port 70000: status $rc, $(cat bad.err)"
note "rperf report --port: the page served ($(wc -c <page.html) bytes), 404, 405, a taken port said, Ctrl-C stops it"
