# The program owns its signals. The agent's ticks use no signal (its
# ticker thread sleeps to deadlines), so nothing the program does with
# SIGRTMIN+8 — the rperf gem's timer signal, and the agent's until
# 92ccf14 — puts it to death, runs its handler or stops the sampling:
# SIG_DFL, SIG_IGN, a handler of its own, a blocked mask inherited; at
# start, during a recording, after an idle pause; whole-process, through
# the Rperf API, and in a dormant agent driven by `rperf ctl`.
# Before: `trap(42, "SYSTEM_DEFAULT")` killed the program ("Real-time
# signal 8", exit 170); after `trap(42) { n += 1 }` the handler ran 1,884
# times in 2 s for a signal nobody sent.
. "$(dirname "$0")/lib.sh"
RPERF="$RPERF_TEST_RPERF"
sig=$(( $(kill -l RTMIN) + 8 ))
export OWNER_SIGNAL=$sig
at_exit 'touch "$WORK/stop" "$WORK/go"; kill $(jobs -p) 2>/dev/null || true; wait || true'

# owner.rb DISPOSITION WHEN: takes SIGRTMIN+8 as DISPOSITION says
# (default, ignore, handler; none leaves it) at WHEN (start, during: after
# 0.2 s of CPU, idle: after sleeping 0.3 s with nothing to run), burns 0.4 s
# of CPU, and prints "done N", N the times its handler ran. With
# OWNER_API=1 it records through the Rperf API; with OWNER_WAIT=1 it
# waits for the file `go` first and for `stop` at the end (rperf ctl).
cat >owner.rb <<'RUBY'
$stdout.sync = true
SIG = Integer(ENV.fetch("OWNER_SIGNAL"))
disposition, at = ARGV
handled = 0
take = lambda do
  case disposition
  when "default" then trap(SIG, "SYSTEM_DEFAULT")
  when "ignore" then trap(SIG, "IGNORE")
  when "handler" then trap(SIG) { handled += 1 }
  end
end
def burn(seconds)
  clock = Process::CLOCK_THREAD_CPUTIME_ID
  t = Process.clock_gettime(clock)
  nil while Process.clock_gettime(clock) - t < seconds
end
if ENV["OWNER_WAIT"]
  puts "waiting"
  sleep 0.01 until File.exist?("go")
end
if ENV["OWNER_API"]
  require "rperf"
  Rperf.start(mode: :cpu, frequency: 1000)
end
caught = File.read("/proc/self/status")[/^SigCgt:\s*(\h+)/, 1].to_i(16)[SIG - 1]
take.() if at == "start"
burn(0.2)
take.() if at == "during"
if at == "idle"
  sleep 0.3
  take.()
end
burn(0.4)
if ENV["OWNER_API"]
  data = Rperf.stop
  File.write("api.samples", "#{data[:sampling_count]} #{Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID, :millisecond)}\n")
end
if ENV["OWNER_WAIT"]
  puts "burned"
  sleep 0.01 until File.exist?("stop")
end
puts "done #{handled} caught-before-taking=#{caught}"
RUBY

# samples per CPU ms of a profile, x1000 (an integer for the shell)
rate_of() {
    local f=$1
    awk -v n="$(check field "$f" sampling_count)" -v u="$(check field "$f" user_ns)" -v s="$(check field "$f" sys_ns)" \
        'BEGIN { printf "%d", 1000 * n / ((u + s) / 1e6) }'
}

# expect_done NAME OUT: the program finished as without the agent.
expect_done() {
    grep -q "^done 0 caught-before-taking=0$" "$2" ||
        fail "$1: the program did not end as its own: $(cat "$2" "${2%.out}.err" 2>/dev/null | head -5)"
}

# whole-process: the baseline first, beside which every case's rate is held
run_case() {
    local name=$1
    shift
    local rc=0
    "$@" >"$name.out" 2>"$name.err" || rc=$?
    [ "$rc" = 0 ] || fail "$name: exit status $rc (without the agent: 0): $(head -3 "$name.err")"
    expect_done "$name" "$name.out"
}
run_case none profiled "$WORK/none" "$RUBY" owner.rb none start
base=$(rate_of "$(only_profile "$WORK/none")")
note "no disposition taken: $base samples per 1000 CPU ms"
for disposition in default ignore handler; do
    for at in start during idle; do
        name=$disposition-$at
        run_case "$name" profiled "$WORK/$name" "$RUBY" owner.rb "$disposition" "$at"
        r=$(rate_of "$(only_profile "$WORK/$name")")
        [ $(( r * 2 )) -ge "$base" ] ||
            fail "$name: $r samples per 1000 CPU ms, against $base with the signal left alone: sampling stopped"
        note "$name: exit 0, handler ran 0 times, $r samples per 1000 CPU ms"
    done
done

# the signal blocked in the program's mask from its start, and ignored
# from its start (a shell's `trap '' RTMIN+8`): both kept as they were
run_case masked profiled "$WORK/masked" perl -MPOSIX -e \
    'sigprocmask(SIG_BLOCK, POSIX::SigSet->new(shift)) or die; exec @ARGV or die' "$sig" "$RUBY" owner.rb none start
r=$(rate_of "$(only_profile "$WORK/masked")")
[ $(( r * 2 )) -ge "$base" ] || fail "masked: $r samples per 1000 CPU ms against $base"
(trap '' RTMIN+8; run_case inherited_ignore profiled "$WORK/inherited" "$RUBY" -e '
    ignored = File.read("/proc/self/status")[/^SigIgn:\s*(\h+)/, 1].to_i(16)[Integer(ENV["OWNER_SIGNAL"]) - 1]
    abort "SIGRTMIN+8 is no longer ignored" unless ignored == 1
    load "owner.rb"' none start)
note "blocked or ignored from the start: kept so, the program ends as its own, sampled ($r per 1000 CPU ms masked)"

# through the Rperf API in a dormant agent (the issue's second case: the
# handler ran for ticks nobody sent, then sampling stopped unannounced)
for disposition in default handler ignore; do
    name=api-$disposition
    rm -f api.samples
    run_case "$name" env OWNER_API=1 RPERF_ENABLED=0 LD_PRELOAD="$PRELOAD" "$RUBY" owner.rb "$disposition" during
    read -r n cpu_ms <api.samples
    [ $(( n * 1000 * 2 / cpu_ms )) -ge "$base" ] ||
        fail "$name: $n samples in $cpu_ms CPU ms, against $base per 1000 with the signal left alone"
    note "$name: exit 0, handler ran 0 times, $n samples in $cpu_ms CPU ms"
done

# a dormant agent driven by rperf ctl: the recording starts from outside,
# the program takes the signal in it, the recording stops from outside
export RPERF_AGENT=$RPERF_TEST_AGENT RPERF_ATTACH=$RPERF_TEST_ATTACH
for disposition in default handler; do
    name=ctl-$disposition
    rm -f go stop
    OWNER_WAIT=1 LD_PRELOAD="$PRELOAD" RPERF_ENABLED=0 "$RUBY" owner.rb "$disposition" during >"$name.out" 2>"$name.err" &
    pid=$!
    for _ in $(seq 200); do grep -q waiting "$name.out" 2>/dev/null && break; sleep 0.05; done
    "$RPERF" ctl "$pid" start 2>"$name.ctl" || fail "$name: ctl start: $(cat "$name.ctl")"
    touch go
    for _ in $(seq 400); do grep -q burned "$name.out" 2>/dev/null && break; sleep 0.05; done
    grep -q burned "$name.out" || fail "$name: the program did not get through its work: $(cat "$name.out" "$name.err")"
    "$RPERF" ctl "$pid" stop -o "$name.json.gz" 2>>"$name.ctl" || fail "$name: ctl stop: $(cat "$name.ctl")"
    touch stop
    rc=0
    wait "$pid" || rc=$?
    [ "$rc" = 0 ] || fail "$name: exit status $rc: $(cat "$name.err")"
    expect_done "$name" "$name.out"
    n=$(check field "$name.json.gz" sampling_count)
    [ "$n" -ge 100 ] || fail "$name: $n samples for 0.6 s of CPU at 1000 Hz"
    note "$name: exit 0, handler ran 0 times, $n samples in the ctl recording"
done
note "program_signals: ok"
