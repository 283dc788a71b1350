# The rperf command never loses a recording and never changes the
# command's outcome. A signal sent to rperf (TERM, HUP, INT: a supervisor,
# kill, timeout(1)) goes on to the command and the profile is still
# written; an output path that cannot be written is found before the
# command runs; a write that fails after it keeps what was recorded and
# says where; a reader of rperf's output that goes away (`| head`) leaves
# nothing behind; the exit status is the command's own, Ruby or not.
# Before: `kill <rperf>` ended rperf without a word, the command went on
# as an orphan and no profile was written; `kill -INT <rperf>` did
# nothing; `rperf record ls /` exited 1 where ls exits 0.
. "$(dirname "$0")/lib.sh"
RPERF="$RPERF_TEST_RPERF"
export RPERF_AGENT=$RPERF_TEST_AGENT
[ -z "${RPERF_TEST_PRELOAD_FIRST:-}" ] || export LD_PRELOAD=$RPERF_TEST_PRELOAD_FIRST
# rperf's session directories go here, to be counted
mkdir tmp
export TMPDIR=$WORK/tmp
at_exit 'kill $(jobs -p) 2>/dev/null || true; wait || true'

# server.rb: works until a signal ends it, as a server does; says which.
cat >server.rb <<'RUBY'
$stdout.sync = true
%w[TERM HUP].each { |s| trap(s) { puts "got #{s}"; exit 0 } }
def serve = (t = Process.clock_gettime(Process::CLOCK_MONOTONIC); nil while Process.clock_gettime(Process::CLOCK_MONOTONIC) - t < 0.05)
puts "serving"
begin
  400.times { serve }
  puts "never signalled"
rescue Interrupt
  puts "got INT"
  raise
end
RUBY

# signal_rperf NAME SIGNAL WANT_STATUS WANT_LINE: rperf records server.rb;
# SIGNAL is sent to rperf alone once the server serves.
signal_rperf() {
    local name=$1 sig=$2 want=$3 line=$4 rc=0
    # a shell's background job ignores SIGINT; the server should not
    perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die' \
        "$RPERF" record -m wall -o "$name.json.gz" "$RUBY" server.rb >"$name.out" 2>"$name.err" &
    local pid=$!
    for _ in $(seq 300); do grep -q serving "$name.out" 2>/dev/null && break; sleep 0.05; done
    sleep 0.3
    kill -"$sig" "$pid"
    wait "$pid" || rc=$?
    [ "$rc" = "$want" ] || fail "$name: rperf exited $rc; the command's own status is $want: $(cat "$name.err")"
    grep -q "^$line$" "$name.out" || fail "$name: the command did not get $sig: $(cat "$name.out")"
    [ -s "$name.json.gz" ] || fail "$name: no profile written: $(cat "$name.err")"
    local serve
    serve=$(check weight "$name.json.gz" Object#serve)
    [ "$serve" -gt 100000000 ] || fail "$name: Object#serve got $serve ns"
    note "kill -$sig rperf: the command got it ('$line'), exit $rc, profile written (Object#serve $((serve / 1000000)) ms)"
}
signal_rperf term TERM 0 "got TERM"
signal_rperf hup HUP 0 "got HUP"
signal_rperf int INT 130 "got INT"
[ -z "$(ls -A tmp)" ] || fail "session directories left: $(ls -A tmp)"

# the output path is checked before the command runs
rc=0
"$RPERF" record -o missing/out.json.gz "$RUBY" -e 'File.write("ran.marker", "")' >/dev/null 2>err.txt || rc=$?
[ "$rc" = 1 ] && [ ! -e ran.marker ] && grep -q "^rperf: cannot write the profile to missing/out.json.gz: No such file or directory; nothing was run$" err.txt ||
    fail "an unwritable output: exit $rc, ran: $([ -e ran.marker ] && echo yes || echo no), $(cat err.txt)"
note "an output that cannot be written: one line, exit 1, the command not run"

# a write that fails after the command (its folder gone meanwhile): the
# recording is kept, and rperf says where; the status is the command's
mkdir gone
rc=0
"$RPERF" record -o gone/out.json.gz "$RUBY" -e 'Dir.rmdir("gone"); exit 4' >/dev/null 2>err.txt || rc=$?
[ "$rc" = 4 ] || fail "a failed write: exit $rc, the command's is 4: $(cat err.txt)"
kept=$(sed -n 's/^rperf: what was recorded is kept in \([^ ]*\) (rperf-analyze stat .* reads it)$/\1/p' err.txt)
[ -n "$kept" ] && [ -n "$(ls "$kept"/profile-*.json.gz 2>/dev/null)" ] || fail "a failed write: nothing said kept, or nothing there: $(cat err.txt)"
"$ANALYZE" stat "$kept" >/dev/null 2>&1 || fail "the kept recording $kept does not read"
rm -rf "$kept"
note "a write that failed after the run: exit 4 (the command's), the recording kept and named"

# a reader that goes away: nothing left behind; the command's status
rc=0
"$RPERF" stat --report "$RUBY" -e '2000.times { |i| puts i }' 2>/dev/null | head -2 >head.txt || true
[ "$(wc -l <head.txt)" = 2 ] || fail "| head: $(cat head.txt)"
[ -z "$(ls -A tmp)" ] || fail "| head: session directories left: $(ls -A tmp)"
"$RPERF" record -o r.json.gz --print "$RUBY" -e 'def spin = 300_000.times { }; spin' 2>/dev/null | head -1 >/dev/null || true
[ -z "$(ls -A tmp)" ] || fail "record --print | head: session directories left: $(ls -A tmp)"
note "rperf's output read by head: nothing left behind"

# not Ruby: the command's status, one line
for cmd in "ls /" "sh -c 'exit 3'"; do
    want=$(sh -c "$cmd" >/dev/null 2>&1; echo $?)
    rc=0
    eval "\"\$RPERF\" record -o nr.json.gz $cmd" >/dev/null 2>err.txt || rc=$?
    [ "$rc" = "$want" ] || fail "rperf record $cmd: exit $rc, the command's is $want: $(cat err.txt)"
    [ "$(wc -l <err.txt)" = 1 ] && grep -q "^rperf: no profile was written: " err.txt ||
        fail "rperf record $cmd: $(cat err.txt)"
done
[ -z "$(ls -A tmp)" ] || fail "not Ruby: session directories left: $(ls -A tmp)"
note "a command that is not Ruby: its own status (0, 3), one line"
note "rperf_keeps: ok"
