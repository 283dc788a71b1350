# Every way a Ruby process ends leaves its profile, with the exit status
# (or the killing signal) unchanged: normal end, exit, uncaught exception,
# abort, exit!, SIGINT and SIGTERM with Ruby's default handlers, and exec.
. "$(dirname "$0")/lib.sh"

cat >prog.rb <<'RUBY'
require "cpu_burn"
def ending_work = burn_cpu(0.03)
ending_work
case ARGV[0]
when "normal" then nil
when "exit" then exit 4
when "raise" then raise "boom"
when "abort" then abort "aborting"
when "exit!" then exit! 6
when "int" then Process.kill(:INT, $$); sleep 5
when "term" then Process.kill(:TERM, $$); sleep 5
when "exec" then exec("sh", "-c", "exit 9")
when "exec-fail" then (exec("/nonexistent/program") rescue puts("exec failed")); ending_work
end
RUBY

try() {
    local how=$1 want=$2 rc=0
    "$RUBY" prog.rb "$how" >plain.out 2>/dev/null || rc=$?
    [ "$rc" = "$want" ] || fail "$how: unprofiled exit status $rc, expected $want"
    rc=0
    profiled "$WORK/$how" "$RUBY" prog.rb "$how" >agent.out 2>/dev/null || rc=$?
    [ "$rc" = "$want" ] || fail "$how: exit status $rc with the agent, expected $want"
    cmp -s plain.out agent.out || fail "$how: output changed"
    local n
    n=$(ls "$WORK/$how" 2>/dev/null | grep -c '^profile-.*\.json\.gz$')
    local f
    for f in "$WORK/$how"/profile-*.json.gz; do
        check schema "$f" >/dev/null || fail "$how: bad profile"
    done
    note "$how: exit status $rc, $n profile(s)"
    echo "$n"
}

[ "$(try normal 0 | tail -1)" = 1 ] || fail "normal end: no profile"
[ "$(try exit 4 | tail -1)" = 1 ] || fail "exit: no profile"
[ "$(try raise 1 | tail -1)" = 1 ] || fail "uncaught exception: no profile"
[ "$(try abort 1 | tail -1)" = 1 ] || fail "abort: no profile"
[ "$(try exit! 6 | tail -1)" = 1 ] || fail "exit!: no profile"
[ "$(try int 130 | tail -1)" = 1 ] || fail "SIGINT: no profile"
[ "$(try term 143 | tail -1)" = 1 ] || fail "SIGTERM: no profile"
[ "$(try exec 9 | tail -1)" = 1 ] || fail "exec: the Ruby image left no profile"
[ "$(try exec-fail 0 | tail -1)" = 2 ] || fail "failed exec: expected the profile before and after it"
w=$(check weight "$(ls "$WORK/exit!"/profile-*.json.gz)" Object#ending_work)
[ "$w" -gt 0 ] || fail "exit! profile has no samples of the program"
