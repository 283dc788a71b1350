# rperf report's server under slow and hostile clients. It served one
# connection at a time, each read for up to 10 s a recv: a client that
# sent its request a byte at a time held every other for as long as it
# liked (three ordinary requests timed out at 12 s), and one that sent a
# byte and waited stalled the next request 9.7 s. It answered any Host
# header, so a web page the user visited could read the profiles through
# DNS rebinding; and it wrote a diff page to disk for every pair asked.
# Now each connection has a thread and a deadline for its whole request
# (serve.c), the Host header must name the server (hosts.c: 403
# otherwise), and the pages made are kept within a bound (history.c).
. "$(dirname "$0")/lib.sh"
RPERF="$RPERF_TEST_RPERF"
export TMPDIR="$WORK/tmp"
mkdir "$TMPDIR"
at_exit 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true'

record_hot_method p.json.gz 0.05
# a directory of snapshots: 33 copies, 1,056 ordered pairs to diff
mkdir snaps
for i in $(seq -w 1 33); do cp p.json.gz "snaps/rperf-abc12$i-20261206T1200$i.json.gz"; done

port=$(free_port)
"$RPERF" report --port "$port" snaps 2>serve.err &
server=$!
wait_http "http://127.0.0.1:$port/snapshots" 20
base="http://127.0.0.1:$port"

# a client that sends its request a byte a second, and one that sends a
# byte and waits: both stay connected while 20 ordinary clients are served
cat >slow.rb <<'RUBY'
require "socket"
port, mode = Integer(ARGV[0]), ARGV[1]
s = TCPSocket.new("127.0.0.1", port)
if mode == "trickle"
  "GET /snapshots HTTP/1.1\r\nHost: localhost\r\n\r\n".each_char { |c| s.write(c); sleep 1 }
else
  s.write("G")
  sleep 30
end
RUBY
"$RUBY" slow.rb "$port" trickle & trickle=$!
"$RUBY" slow.rb "$port" idle & idle=$!
sleep 1
t0=$(date +%s%N)
for i in $(seq 20); do
    curl -s -m 5 -o /dev/null -w '%{http_code} %{time_total}\n' "$base/snapshots" >>ordinary.txt &
done
wait $(jobs -p | grep -v -e "^$server\$" -e "^$trickle\$" -e "^$idle\$") 2>/dev/null || true
t1=$(date +%s%N)
kill -0 "$trickle" 2>/dev/null && kill -0 "$idle" 2>/dev/null || fail "a slow client was cut before the test"
ok=$(grep -c '^200 ' ordinary.txt || true)
slowest=$(sort -k2 -n ordinary.txt | tail -n 1 | cut -d' ' -f2)
[ "$ok" = 20 ] || fail "$ok of 20 ordinary requests answered 200 beside the slow clients: $(tr '\n' ';' <ordinary.txt)"
note "20 ordinary requests beside a byte-a-second client and an idle one: all 200, the slowest in $slowest s, all in $(((t1 - t0) / 1000000)) ms"
kill "$trickle" "$idle" 2>/dev/null || true

# the Host header: its own names answered, any other 403
status() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
for host in "localhost:$port" "127.0.0.1:$port" "[::1]:$port" localhost; do
    [ "$(status -H "Host: $host" "$base/snapshots")" = 200 ] || fail "Host: $host was not answered"
done
for host in attacker.example "attacker.example:$port" "localhost.attacker.example" "127.0.0.1.nip.io"; do
    [ "$(status -H "Host: $host" "$base/snapshots")" = 403 ] || fail "Host: $host was answered: $(status -H "Host: $host" "$base/snapshots")"
done
# malformed: no Host at all (HTTP/1.0 style) 400; an unclosed IPv6
# literal and a 300-character name 403
raw() { "$RUBY" -rsocket -e 's = TCPSocket.new("127.0.0.1", Integer(ARGV[0])); s.write(ARGV[1].gsub("|", "\r\n") + "\r\n\r\n"); print s.read.to_s[/\A\S+ (\d+)/, 1]' "$port" "$1"; }
[ "$(raw 'GET /snapshots HTTP/1.0')" = 400 ] || fail "a request without Host: $(raw 'GET /snapshots HTTP/1.0')"
[ "$(raw "GET /snapshots HTTP/1.1|Host: [::1")" = 403 ] || fail "Host: [::1 was answered"
[ "$(raw "GET /snapshots HTTP/1.1|Host: $(printf 'a%.0s' $(seq 300))")" = 403 ] || fail "a 300-character Host was answered"
curl -s -D head.txt -o /dev/null "$base/snapshots"
! grep -qi '^access-control-allow' head.txt || fail "a cross-origin read is allowed: $(cat head.txt)"
note "Host: the loopback's names answered, attacker.example and others 403; no Access-Control-Allow header"

# the diff pages: every ordered pair of the 33 snapshots asked once, the
# pages kept stay within the bound (32 pages)
asked=0
for a in $(seq 0 32); do
    for b in $(seq 0 32); do
        [ "$a" = "$b" ] && continue
        echo "url = \"$base/diff/$a/$b\""
        echo "output = \"/dev/null\""
        asked=$((asked + 1))
    done
done >pairs.cfg
curl -s -K pairs.cfg -w '%{http_code}\n' >codes.txt || fail "the diff pages: curl failed"
[ "$(grep -c '^200$' codes.txt)" = "$asked" ] || fail "$(grep -vc '^200$' codes.txt) of $asked diff pages not answered 200"
kept=$(find "$TMPDIR" -name 'diff-*.html' | wc -l)
[ "$kept" -le 32 ] || fail "$kept diff pages kept after $asked asked (at most 32)"
note "$asked distinct diff pages asked for: $kept kept on disk"
kill -INT "$server"
wait "$server" || fail "SIGINT: status $?"
[ -z "$(find "$TMPDIR" -name '*.html')" ] || fail "pages left behind"
