# Fault injection for rperf attach: rperf-attach killed or signalled at
# every step of a borrow (RPERF_ATTACH_FAULT, attach/main.c), the target
# stopped in the middle of a call, attaches into programs that load and
# require code, fork, compact, run 50 threads, or have a thread of their
# own in epoll_wait. After each one the target must go on — its output
# continues, it is neither traced nor stopped — and at the end it exits
# with its own status and its whole output. Then a real recording of each,
# which must still work.
#
# scripts/test runs it a second time with rperf-attach built with ASan and
# UBSan (RPERF_TEST_ATTACH_SANITIZED): the agent it loads is the plain one,
# as a running ruby needs.
. "$(dirname "$0")/lib.sh"
RPERF="$RPERF_TEST_RPERF"
ATTACH=${RPERF_TEST_ATTACH_SANITIZED:-$RPERF_TEST_ATTACH}
export RPERF_AGENT=$RPERF_TEST_AGENT RPERF_ATTACH=$ATTACH
[ -z "${RPERF_TEST_ATTACH_SANITIZED:-}" ] || note "rperf-attach under the sanitizers: $ATTACH"
[ -z "${RPERF_TEST_PRELOAD_FIRST:-}" ] || { echo "# an agent built with the sanitizers cannot be loaded into a running ruby"; exit 77; }
at_exit 'touch "$WORK"/stop-*; kill $(jobs -p) 2>/dev/null || true; wait || true'

# Every target prints "tick N" each round until its file stop-NAME
# appears, then "done", and exits 3; what a round does is its own.
mkdir lib
for i in $(seq 2000); do echo "module Boot$i; def self.v = $i; end" >"lib/boot$i.rb"; done
echo 'module Reloaded; def self.work = (1..200).sum; end' >lib/reloaded.rb
cat >target.rb <<'RUBY'
$stdout.sync = true
$LOAD_PATH.unshift File.expand_path("lib")
kind, stop = ARGV
round = case kind
when "load"    then -> { 20.times { load "lib/reloaded.rb" } }
when "require" then booted = 0; -> { 20.times { require "boot#{(booted += 1) % 2000 + 1}" } }
when "fork"    then -> { pid = fork { (1..20_000).sum; exit!(0) }; Process.wait(pid) }
when "compact" then -> { Array.new(2000) { "x" * 20 }; GC.compact }
when "threads" then
  50.times.map { Thread.new { loop { sleep 0.05; (1..100).sum } } }
  -> { (1..20_000).sum }
when "epoll"
  require "fiddle"
  libc = Fiddle.dlopen(nil)
  create = Fiddle::Function.new(libc["epoll_create1"], [Fiddle::TYPE_INT], Fiddle::TYPE_INT)
  wait = Fiddle::Function.new(libc["epoll_wait"],
    [Fiddle::TYPE_INT, Fiddle::TYPE_VOIDP, Fiddle::TYPE_INT, Fiddle::TYPE_INT], Fiddle::TYPE_INT)
  events = Fiddle::Pointer.malloc(64)
  ep = create.call(0)
  # a thread of the program's own in epoll_wait, called through libffi
  Thread.new { loop { wait.call(ep, events, 1, 200) } } # returns now and then: Ruby can end it
  -> { (1..20_000).sum }
end
n = 0
until File.exist?(stop)
  round.call
  sleep 0.01
  puts "tick #{n += 1}"
end
puts "done"
exit 3
RUBY

# start NAME KIND: sets TARGET once it printed its first line.
start() {
    local name=$1 kind=$2
    # (the output file emptied here, before the fork: a step's target of
    # the same name left it full, and the child truncating it after the
    # fork let the wait below see the old lines and attach to the shell
    # not yet exec'd into ruby: "process N (bash): is not a Ruby process")
    rm -f "stop-$name" "$name.out"
    "$RUBY" target.rb "$kind" "stop-$name" >"$name.out" 2>"$name.err" &
    TARGET=$!
    for _ in $(seq 400); do [ -s "$name.out" ] && return 0; sleep 0.05; done
    fail "$name did not start: $(cat "$name.err")"
}

# alive NAME WHAT: the target is neither stopped nor traced, and prints
# another tick within 5 s.
alive() {
    local name=$1 what=$2 before state tracer
    before=$(wc -l <"$name.out")
    for _ in $(seq 100); do
        state=$(awk '/^State:/ { print $2 }' "/proc/$TARGET/status" 2>/dev/null || echo gone)
        tracer=$(awk '/^TracerPid:/ { print $2 }' "/proc/$TARGET/status" 2>/dev/null || echo gone)
        [ "$(wc -l <"$name.out")" -gt "$before" ] && [ "$state" != T ] && [ "$state" != t ] &&
            [ "$tracer" = 0 ] && return 0
        sleep 0.05
    done
    fail "$name after $what: state $state, tracer $tracer, no new tick ($(tail -n 3 "$name.err"))"
}

# finish NAME: exit status 3, every tick in order, then "done".
finish() {
    local name=$1 rc=0
    touch "stop-$name"
    wait "$TARGET" || rc=$?
    [ "$rc" = 3 ] || fail "$name: exit status $rc, expected 3 ($(tail -n 5 "$name.err"))"
    [ ! -s "$name.err" ] || fail "$name wrote to stderr: $(head -n 5 "$name.err")"
    "$RUBY" -e 'lines = File.readlines(ARGV[0], chomp: true)
        abort "#{ARGV[0]}: last line #{lines.last.inspect}" unless lines.pop == "done"
        lines.each_with_index { |l, i| abort "#{ARGV[0]}: line #{i + 1} is #{l.inspect}" unless l == "tick #{i + 1}" }' \
        "$name.out" || fail "$name: output changed"
}

faults=0
# inject NAME FAULT [COMMAND]: one rperf-attach handing COMMAND (status)
# over, with FAULT.
# The target, once the fault has stopped it, continued a moment later (as
# an operator's `fg`): waiting for the stop itself, not a fixed time,
# which a loaded machine could pass before rperf-attach reached its step
# (the target was then left stopped for good). 20 s at most.
continue_once_stopped() {
    local state
    for _ in $(seq 400); do
        state=$(awk '/^State:/ { print $2 }' "/proc/$TARGET/status" 2>/dev/null || echo gone)
        [ "$state" = T ] || [ "$state" = gone ] && break
        sleep 0.05
    done
    sleep 0.2
    kill -CONT "$TARGET" 2>/dev/null || true
}

inject() {
    local name=$1 fault=$2 command=${3:-status} rc=0 continuer=""
    case $fault in
    *:stop) continue_once_stopped & continuer=$! ;; # stopped by the fault, continued later
    esac
    # (in a subshell whose own words go nowhere: the shell's "Killed";
    # every signal at its default action, as an operator's terminal
    # has them, though this suite may run under nohup or in background)
    (RPERF_ATTACH_FAULT=$fault env --default-signal "$ATTACH" --wait 2 "$TARGET" "$RPERF_TEST_AGENT" \
        "$(printf '%s\nreply=%s/reply' "$command" "$WORK")" >inject.out 2>inject.err; exit $?) 2>/dev/null || rc=$?
    [ -z "$continuer" ] || wait "$continuer"
    alive "$name" "$fault (rperf-attach status $rc: $(head -c 200 inject.err))"
    # A fault counts when it fired: rperf-attach ended by that signal
    # (a call may make fewer system calls than an in-call step names).
    local expected
    case $fault in
    *:kill) expected=137 ;; *:int) expected=130 ;; *:term) expected=143 ;; *:hup) expected=129 ;; *) expected=any ;;
    esac
    if [ "$expected" = any ] || [ "$rc" = "$expected" ]; then
        faults=$((faults + 1))
    elif [[ $fault != in-call:* ]]; then
        fail "$name: the fault $fault did not fire (rperf-attach status $rc: $(cat inject.err))"
    fi
}

# The commands the agent's calls hand over, one per way of failing.
mkdir rec
declare -A command_for=(
    [kill]="$(printf 'start\ndir=%s/rec\nmode=cpu\nfrequency=1000' "$WORK")"
    [int]=snapshot$'\n'"dir=$WORK/rec" [term]=stop [hup]=status [stop]=status)
# The steps of a call into the loaded agent (rperf_remote makes no system
# call of its own: its call goes from call-ready to returning).
steps="stopped call-ready returning returned released"

for kind in load require fork compact threads epoll; do
    SECONDS=0
    # The load of the agent interrupted: a fresh process for each step of
    # the dlopen call and its system calls (opening, reading, mapping),
    # killed there; Ctrl-C there; the process stopped there.
    for fault in call-ready:kill in-call:1:kill in-call:3:kill in-call:6:kill in-call:10:kill \
        in-call:15:kill in-call:20:kill in-call:30:kill returning:kill in-call:8:int in-call:2:stop; do
        start "$kind-fresh" "$kind"
        inject "$kind-fresh" "$fault"
        finish "$kind-fresh"
    done
    # The agent loaded: every step of the command's call, every way.
    start "$kind" "$kind"
    "$ATTACH" --wait 5 "$TARGET" "$RPERF_TEST_AGENT" "$(printf 'status\nreply=%s/reply' "$WORK")" >/dev/null ||
        fail "$kind: the first attach failed"
    for step in $steps; do
        for action in kill int term hup stop; do
            inject "$kind" "$step:$action" "${command_for[$action]}"
        done
    done
    # Whatever those left recording ends (or says it was not).
    "$ATTACH" --wait 5 "$TARGET" "$RPERF_TEST_AGENT" "$(printf 'stop\nreply=%s/reply' "$WORK")" >/dev/null 2>&1 || true
    # A real recording still works, and leaves it as it was.
    "$RPERF" attach -m wall -d 1 -o "$kind.json.gz" "$TARGET" 2>"$kind.attach.err" ||
        fail "$kind: attach after the faults: $(cat "$kind.attach.err")"
    samples=$("$RUBY" "$CHECK" field "$kind.json.gz" sampling_count)
    total=$("$RUBY" "$CHECK" total "$kind.json.gz")
    # (in wall mode the recording holds the target's second: its main
    # thread's sleeps as %GVL=blocked, its work where ticks found it
    # running; a target asleep most of its second takes few samples — a
    # tick that finds it asleep takes none — so their count proves
    # nothing. A recording that does not work holds nothing, or a moment)
    [ "$total" -gt 500000000 ] || fail "$kind: $((total / 1000000)) ms recorded in 1 s ($samples samples)"
    alive "$kind" "the recording"
    finish "$kind"
    note "$kind: alive after every fault; a recording after them: $((total / 1000000)) ms, $samples samples (${SECONDS} s)"
done

# A SIGSTOPped target is refused in one line, and left stopped.
start stopped load
kill -STOP "$TARGET"
rc=0
"$RPERF" attach -d 1 "$TARGET" 2>refused.err || rc=$?
[ "$rc" = 1 ] && grep -q "is stopped" refused.err || fail "a stopped target: status $rc, $(cat refused.err)"
[ "$(awk '/^State:/ { print $2 }' "/proc/$TARGET/status")" = T ] || fail "the stopped target was resumed"
kill -CONT "$TARGET"
alive stopped "SIGCONT"
finish stopped

# The load loop (loading code, the postponed job ending a `load`): five
# real recordings in a row, each one written.
start loader load
for i in 1 2 3 4 5; do
    "$RPERF" attach -d 0.5 -o "loader$i.json.gz" "$TARGET" 2>attach-loader.err || fail "load loop, attach $i: $(cat attach-loader.err)"
    alive loader "attach $i"
done
finish loader

# An operator's Ctrl-C at any moment of `rperf attach`: SIGINT to rperf's
# whole process group, as a terminal sends it, from the first instant to
# well into the recording. rperf ends the recording and writes it (or, hit
# before it began, had nothing to end); the target goes on, untraced, not
# stopped, and is left dormant — never recording with no one to stop it.
start ctrlc load
interrupted=0
for delay in 0 0.001 0.003 0.005 0.01 0.02 0.03 0.05 0.08 0.12 0.2 0.3 0.5; do
    rm -f ctrlc.json.gz
    # (-d: should a Ctrl-C be lost, the test still ends, and fails)
    env --default-signal setsid "$RPERF" attach -d 20 -o ctrlc.json.gz "$TARGET" >rperf-ctrlc.out 2>rperf-ctrlc.err &
    rperf_pid=$!
    # its own process group, as at a terminal, before the first instant
    for _ in $(seq 400); do
        [ "$(ps -o pgid= -p "$rperf_pid" | tr -d ' ')" = "$rperf_pid" ] && break
        sleep 0.005
    done
    sleep "$delay"
    SECONDS=0
    kill -INT -- "-$rperf_pid" 2>/dev/null || true
    rc=0
    wait "$rperf_pid" || rc=$?
    case $rc in
    0) check schema ctrlc.json.gz >/dev/null || fail "Ctrl-C after ${delay} s: rperf said 0 but wrote no profile: $(cat rperf-ctrlc.err)" ;;
    130) ! grep -q "recording process" rperf-ctrlc.err || fail "Ctrl-C after ${delay} s: the recording began, and rperf died with it unwritten" ;;
    *) fail "Ctrl-C after ${delay} s: rperf attach exited $rc: $(cat rperf-ctrlc.err)" ;;
    esac
    [ "$SECONDS" -lt 15 ] || fail "Ctrl-C after ${delay} s did not end rperf attach (it ran to -d)"
    alive ctrlc "Ctrl-C after ${delay} s (rperf status $rc)"
    state=$("$RPERF" ctl "$TARGET" status 2>&1) || fail "ctl status after Ctrl-C at ${delay} s: $state"
    [[ $state == *": dormant"* ]] || fail "Ctrl-C after ${delay} s left the target '$state'"
    interrupted=$((interrupted + 1))
done
finish ctrlc
note "Ctrl-C at $interrupted moments of rperf attach: the target went on, dormant each time"

note "$faults interrupted attaches, no target harmed"
[ "$faults" -ge 200 ] || fail "only $faults interrupted attaches"
