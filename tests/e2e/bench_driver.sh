# scripts/bench's driver (tests/bench/driver/, Ruby) runs its quick
# subcommands against this build and prints what it promises; wrong
# arguments get a one-line error and exit status 2. (The benchmarks' own
# figures are never judged: they are for people to read.)
. "$(dirname "$0")/lib.sh"

DRIVER="$RPERF_TEST_SRC/tests/bench/driver/bench.rb"
bench() {
    RPERF_BENCH_BUILD="$RPERF_TEST_BUILD_ROOT" RPERF_BENCH_AGENT="$PRELOAD" \
        "$RUBY" --disable-gems "$DRIVER" "$@"
}

# 1. Alone: its usage (every subcommand), exit status 2. Each subcommand
#    the usage lists is one the driver has: given too many arguments, it
#    says how many it takes (an unknown one would print the usage).
rc=0
bench >usage.txt 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "the driver alone exited $rc, expected 2"
names=$(sed -n 's/^  scripts\/bench \([a-z-]*\).*/\1/p' usage.txt)
[ "$(echo "$names" | wc -l)" -ge 16 ] || fail "usage lists too few subcommands: $names"
for name in $names; do
    rc=0
    bench "$name" a b c d e >err.txt 2>&1 || rc=$?
    [ "$rc" = 2 ] && grep -q "^scripts/bench $name: takes at most" err.txt ||
        fail "'$name' is in the usage but not a subcommand the driver has: $(head -2 err.txt)"
done

# 2. names: the agent's memory beside the run without it, ten rows, and
#    the analyzer's line on the endpoint names beyond the agent's bound
#    (3,000 distinct names against 1,000 kept per part).
bench names 3000 >names.txt
rows=$(grep -cE '^ +[0-9]+ +[0-9.]+ +[0-9.]+ +-?[0-9.]+$' names.txt || true)
[ "$rows" = 10 ] || fail "names 3000: $rows rows, expected 10: $(cat names.txt)"
tail -n 1 names.txt | grep -q "more endpoint names" || fail "names 3000: no endpoint-bound line: $(tail -n 2 names.txt)"
# the last row: the process with the agent is the larger
awk '/^ +3000 / { exit !($2 > $3) }' names.txt || fail "names 3000: agent not above plain: $(grep '^ *3000 ' names.txt)"

# 3. startup: both lines, in their format.
bench startup 2 >startup.txt
for what in "ruby -e 1:" "sh -c true:"; do
    grep -qE "^  $what +mean [0-9.]+ ms without, [0-9.]+ ms with the agent: [-+][0-9.]+ ms; fastest [0-9.]+ / [0-9.]+ ms: [-+][0-9.]+ ms$" \
        startup.txt || fail "startup: no '$what' line: $(cat startup.txt)"
done

# 4. Wrong arguments: one line naming what was expected, exit status 2.
expect_usage_error() {
    local expected=$1 rc=0
    shift
    bench "$@" >err.txt 2>&1 || rc=$?
    [ "$rc" = 2 ] || fail "bench $*: exit status $rc, expected 2"
    [ "$(wc -l <err.txt)" = 1 ] && grep -q "$expected" err.txt || fail "bench $*: said '$(cat err.txt)'"
}
expect_usage_error "N must be a positive whole number, got 'many'" names many
expect_usage_error "RUNS must be a positive whole number, got '0'" overhead 0
expect_usage_error "STACK must be rails or line, got 'mars'" soak 1 mars
expect_usage_error "startup: takes at most 1 argument, got 2" startup 2 3
expect_usage_error "usage: scripts/bench accuracy-vs AGENT" accuracy-vs
note "usage, names, startup and wrong arguments as promised"
