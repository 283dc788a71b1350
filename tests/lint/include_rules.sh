# The include rules (LAYERS, tests/lint/include_rules.rb) hold in this
# tree, and the check catches each way of breaking them: an include of a
# higher layer, one between two folders of the same layer, a circle of
# includes, a file past 800 lines, a folder LAYERS does not name.
set -euo pipefail
: "${RPERF_TEST_RUBY:?}" "${RPERF_TEST_SRC:?}"
check="$RPERF_TEST_SRC/tests/lint/include_rules.rb"
work=$(mktemp -d "${TMPDIR:-/tmp}/rperf-lint.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$RPERF_TEST_RUBY" "$check" "$RPERF_TEST_SRC" || fail "the source tree breaks its include rules"

# expect_breach WHAT LINE: the check fails on the fixture, saying LINE.
expect_breach() {
    local out rc=0
    out=$("$RPERF_TEST_RUBY" "$check" "$work/tree" 2>&1) || rc=$?
    [ "$rc" = 1 ] || fail "$1: the check exited $rc: $out"
    grep -qF -- "$2" <<<"$out" || fail "$1: expected '$2', got: $out"
    echo "# $1: $2"
}
fixture() {
    rm -rf "$work/tree"
    mkdir -p "$work/tree"/{common,profile,agent/base,agent/sampling,agent/requests,agent/allocations}
    cp "$RPERF_TEST_SRC/LAYERS" "$work/tree/"
    printf '#include "../base/log.h"\n' >"$work/tree/agent/sampling/sampler.c"
    : >"$work/tree/agent/base/log.h"
    "$RPERF_TEST_RUBY" "$check" "$work/tree" >/dev/null || fail "a fixture that keeps the rules fails the check"
}

fixture
printf '#include "../sampling/sampler.h"\n' >"$work/tree/agent/base/log.c"
expect_breach "upward" "agent/base/log.c: includes agent/sampling/sampler.h: base/ may not include sampling/"

fixture
printf '#include "../allocations/allocations.h"\n' >"$work/tree/agent/requests/spans.c"
expect_breach "sideways" "requests/ may not include allocations/"

fixture
printf '#include "../profile/profile.h"\n' >"$work/tree/common/vec.h"
expect_breach "common above profile" "common/vec.h: includes profile/profile.h: common/ may not include profile/"

fixture
printf '#include "b.h"\n' >"$work/tree/agent/sampling/a.c"
printf '#include "a.h"\n' >"$work/tree/agent/sampling/b.c"
expect_breach "circle" "agent/sampling/a, agent/sampling/b: include each other (a circle)"

fixture
seq 801 | sed 's|.*|/* line */|' >"$work/tree/profile/long.c"
expect_breach "too long" "profile/long.c: 801 lines, more than 800"

fixture
mkdir "$work/tree/agent/extra"
printf '#include "../base/log.h"\n' >"$work/tree/agent/extra/x.c"
expect_breach "unnamed folder" "agent/extra/x.c: includes agent/base/log.h, and agent/extra/ is not in LAYERS [agent]"
echo "# include rules: the tree keeps them; six breaches caught"
