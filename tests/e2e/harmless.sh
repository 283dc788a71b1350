# Preloaded into programs that are not Ruby, the agent does nothing: same
# output, no stderr, same exit status, also with LD_BIND_NOW=1. And it
# references no Ruby symbol strongly (that is what makes this possible).
. "$(dirname "$0")/lib.sh"

undefined=$(nm -D --undefined-only "$RPERF_TEST_AGENT" | awk '$2 ~ /^(rb_|ruby_)/ && $1 != "w"')
[ -z "$undefined" ] || fail "strong references to Ruby symbols: $undefined"

expect_same() {
    local name=$1
    shift
    local rc_plain=0 rc_agent=0
    "$@" >plain.out 2>plain.err || rc_plain=$?
    for bind in "" 1; do
        rc_agent=0
        LD_BIND_NOW=$bind LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/s" "$@" \
            >agent.out 2>agent.err || rc_agent=$?
        [ "$rc_plain" = "$rc_agent" ] || fail "$name: exit status $rc_agent, expected $rc_plain"
        cmp -s plain.out agent.out || fail "$name: stdout differs"
        [ ! -s agent.err ] || cmp -s plain.err agent.err || fail "$name: stderr: $(cat agent.err)"
    done
    note "$name: unchanged (exit $rc_plain)"
}

expect_same true /bin/true
expect_same false /bin/false
expect_same sh sh -c 'echo hello; echo err >&2; exit 3'
expect_same ls ls -l /usr/bin/env /bin/sh
expect_same env-vars sh -c 'env | grep -c "^_RPERF" || true'
[ ! -e "$WORK/s" ] || fail "a non-Ruby process created the session directory"
