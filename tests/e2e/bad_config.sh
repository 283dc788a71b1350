# An invalid RPERF_* value: one line naming the variable and what is
# accepted; the program runs unprofiled with output and status unchanged.
. "$(dirname "$0")/lib.sh"

try() {
    local var=$1 value=$2 expect=$3
    local rc=0
    env "$var=$value" LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/s" \
        "$RUBY" -e 'puts "ran"; exit 5' >out.txt 2>err.txt || rc=$?
    [ "$rc" = 5 ] || fail "$var=$value: exit status $rc"
    [ "$(cat out.txt)" = ran ] || fail "$var=$value: stdout $(cat out.txt)"
    [ "$(wc -l <err.txt)" -eq 1 ] || fail "$var=$value: expected one line, got: $(cat err.txt)"
    grep -q "^rperf: invalid $var=\"$value\": expected $expect" err.txt \
        || fail "$var=$value: message was: $(cat err.txt)"
    [ ! -e "$WORK/s" ] || fail "$var=$value: profiled anyway"
    note "$(cat err.txt)"
}

try RPERF_MODE gpu "cpu or wall"
try RPERF_FREQUENCY 0 "an integer from 1 to 10000"
try RPERF_FREQUENCY 20000 "an integer from 1 to 10000"
try RPERF_FREQUENCY 1k "an integer from 1 to 10000"
try RPERF_SIGNAL 9 "a real-time signal number"
try RPERF_AGGREGATE maybe "0 or 1"
