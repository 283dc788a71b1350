# CPU where it was spent: a thread that works in bursts of about 0.3 ms
# between waits of about 0.7 ms (tests/bench/bursts.rb: a sleep, a pipe read, a
# Thread::Queue#pop, IO.select) — shorter than a tick at 1 kHz, far
# shorter at 100 Hz. Most ticks come while the thread waits; before, the
# thread served them when it had the GVL back, on the stack of its wait,
# and its running time was charged there at each resume: Object#work got
# 2-36% of its time, the waits the rest. Now a tick that finds the thread
# off the GVL samples nothing, and the running time waits for a tick that
# finds the thread running (agent/sampling/gvl_gc.c, sampler.c). The
# truth is the program's own clock around each burst: thread CPU time in
# cpu mode, wall time in wall mode. Within 5% at 1 kHz, or the sampling
# error of the run where its samples are too few to tell 5%
# (sampling_bound in lib.sh: about 12% at 100 Hz, where a run of a few
# seconds has some 70 samples).
. "$(dirname "$0")/lib.sh"

run() { # KIND MODE HZ ITERATIONS
    local kind=$1 mode=$2 hz=$3 iterations=$4 dir="$WORK/$1-$2-$3"
    RPERF_MODE=$mode RPERF_FREQUENCY=$hz profiled "$dir" "$RUBY" "$RPERF_TEST_SRC/tests/bench/bursts.rb" \
        "$kind" "$iterations" >truth.txt || fail "$kind, $mode, $hz Hz: exit status $?"
    local f truth got bound err
    f=$(only_profile "$dir")
    read -r truth _ <truth.txt
    got=$(check weight "$f" Object#work)
    bound=$(sampling_bound "$f" "$truth")
    err=$(awk -v g="$got" -v t="$truth" 'BEGIN { printf "%.1f", (g - t) * 100 / t }')
    note "$kind, $mode mode, $hz Hz: Object#work $((got / 1000000)) ms of its $((truth / 1000000)) ms" \
        "($err%, within $bound% asked), $(check field "$f" sampling_count) samples"
    awk -v e="$err" -v b="$bound" 'BEGIN { exit !(e <= b && e >= -b) }' ||
        fail "$kind, $mode mode, $hz Hz: Object#work has $((got / 1000000)) ms, the program measured $((truth / 1000000)) ms ($err%, within $bound%)"
}

for hz in 1000 100; do
    for kind in sleep pipe queue select; do
        for mode in cpu wall; do
            run "$kind" "$mode" "$hz" 3000
        done
    done
done
