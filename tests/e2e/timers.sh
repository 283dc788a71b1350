# The ticker thread samples at roughly the asked frequency, whatever
# RPERF_SIGNAL says (the gem's option, taken: the agent's ticks use no
# signal; tests/e2e/program_signals.sh shows the program keeps its own);
# its CPU is counted as the agent's.
. "$(dirname "$0")/lib.sh"

cat >busy.rb <<'RUBY'
t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
nil while Process.clock_gettime(Process::CLOCK_MONOTONIC) - t < 0.5
RUBY

# rate SESSION: triggers per second of profile duration.
rate() {
    local f
    f=$(only_profile "$1")
    awk -v t="$(check field "$f" trigger_count)" -v d="$(check field "$f" duration_ns)" \
        'BEGIN { printf "%.0f", t / (d / 1e9) }'
}

# run_and_expect_rate NAME HZ [ENV=VALUE...]: profiles busy.rb at HZ and
# checks the trigger rate against HZ. Next to it runs a plain timer thread
# (tick_rate.c) as a yardstick: on a loaded machine no timer ticks at the
# asked rate, and the agent is held to what was possible at that moment.
run_and_expect_rate() {
    local name=$1 hz=$2
    shift 2
    "$RPERF_TEST_TICK_RATE" "$hz" 0.6 >"$WORK/$name.yardstick" &
    env "$@" RPERF_FREQUENCY="$hz" LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/$name" \
        RPERF_QUIET=1 "$RUBY" busy.rb
    wait $!
    local possible r
    possible=$(cat "$WORK/$name.yardstick")
    r=$(rate "$WORK/$name")
    note "$name: asked ${hz} Hz, got ${r} triggers/s (a plain timer thread next to it: ${possible}/s)"
    awk -v r="$r" -v hz="$hz" -v possible="$possible" 'BEGIN {
        if (possible > hz) possible = hz
        exit !(r >= 0.5 * possible && r <= 1.5 * hz) }' \
        || fail "$name: ${r} triggers/s for ${hz} Hz (a plain timer thread next to it: ${possible}/s)"
}

run_and_expect_rate signal200 200
run_and_expect_rate signal1000 1000
run_and_expect_rate sleep200 200 RPERF_SIGNAL=false
run_and_expect_rate sleep1000 1000 RPERF_SIGNAL=false
run_and_expect_rate othersig 1000 RPERF_SIGNAL=$(( $(kill -l RTMIN) + 3 ))

# The agent's threads' own CPU (worker_cpu_ns: the worker and the
# ticker): recorded, grows with the ticks that wake the ticker, and is
# theirs alone — a small part of the process's CPU time, which includes
# it (the busy loop takes 0.5 s).
worker_cpu() { check field "$(only_profile "$WORK/$1")" worker_cpu_ns; }
process_cpu() {
    local f
    f=$(only_profile "$WORK/$1")
    echo $(( $(check field "$f" user_ns) + $(check field "$f" sys_ns) ))
}
for name in signal200 signal1000 sleep200 sleep1000; do
    w=$(worker_cpu $name)
    note "$name: the worker's CPU $(( w / 1000 )) us, the process's $(( $(process_cpu $name) / 1000 )) us"
    [ "$w" -gt 0 ] && [ "$w" -lt $(( $(process_cpu $name) / 4 )) ] \
        || fail "$name: worker_cpu_ns $w against the process's $(process_cpu $name)"
done
[ "$(worker_cpu signal1000)" -gt "$(worker_cpu signal200)" ] \
    || fail "the worker took no more CPU at 1000 Hz ($(worker_cpu signal1000)) than at 200 Hz ($(worker_cpu signal200))"
