# tests/e2e/lib.sh — shared helpers of the end-to-end tests (sourced).
#
# The test runner (meson) sets:
#   RPERF_TEST_AGENT    path of librperf-agent.so
#   RPERF_TEST_ANALYZE  path of rperf-analyze
#   RPERF_TEST_RUBY     the Ruby to profile
#   RPERF_TEST_SRC      the source tree (examples/, tests/e2e/)
#   RPERF_TEST_PRELOAD_FIRST  libraries to preload before the agent (sanitizer runtimes)
set -euo pipefail

: "${RPERF_TEST_AGENT:?}" "${RPERF_TEST_ANALYZE:?}" "${RPERF_TEST_RUBY:?}" "${RPERF_TEST_SRC:?}"
RUBY=$RPERF_TEST_RUBY
ANALYZE=$RPERF_TEST_ANALYZE
CHECK="$RPERF_TEST_SRC/tests/e2e/profile_check.rb"
PRELOAD="${RPERF_TEST_PRELOAD_FIRST:+$RPERF_TEST_PRELOAD_FIRST:}$RPERF_TEST_AGENT"

# Test programs `require "cpu_burn"` (cpu_burn.rb); children inherit RUBYLIB.
export RUBYLIB="$RPERF_TEST_SRC/tests/e2e${RUBYLIB:+:$RUBYLIB}"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rperf-e2e.XXXXXX")
cd "$WORK"

# A Ruby that crashed fails the test, whatever the test itself checked: a
# Puma master restarts a crashed worker and the server goes on, a program
# whose stderr goes nowhere says nothing. Every Ruby the test runs writes
# its crash report into $WORK/crashes (Ruby's RUBY_CRASH_REPORT), looked
# at when the test ends, after its own clean-up (at_exit COMMAND: servers
# to stop first).
mkdir crashes
export RUBY_CRASH_REPORT="$WORK/crashes/ruby-%p.txt"
EXIT_CLEANUP=:
at_exit() {
    EXIT_CLEANUP=$1
}
end_test() {
    local rc=$? reports
    eval "$EXIT_CLEANUP" || true
    reports=("$WORK"/crashes/ruby-*)
    if [ -e "${reports[0]}" ]; then
        echo "FAIL: ${#reports[@]} Ruby process(es) crashed; the first: $(grep -m 1 '\[BUG\]' "${reports[0]}")" >&2
        # all of it that says where: Ruby's and C's stacks, the threads (a
        # rare crash must be diagnosable from the log of the run it was in)
        sed -n '/^-- Control frame/,/^-- Other runtime/p' "${reports[0]}" | head -n 120 >&2 || true
        if [ -n "${RPERF_TEST_BUILD_ROOT:-}" ] && mkdir -p "$RPERF_TEST_BUILD_ROOT/crash-reports" 2>/dev/null; then
            cp "${reports[@]}" "$RPERF_TEST_BUILD_ROOT/crash-reports/" 2>/dev/null &&
                echo "(the reports are kept in $RPERF_TEST_BUILD_ROOT/crash-reports)" >&2
        fi
        rc=1
    fi
    rm -rf "$WORK"
    exit "$rc"
}
trap end_test EXIT

# without_asan_quarantine: for tests that fork from a process full of
# threads. Under the sanitizers (scripts/check-sanitizers) GCC 12's ASan
# allocator is not fork-safe: a fork taken while another thread fills a
# quarantine batch leaves the allocator's lock held in the child, where any
# new thread blocks (Ruby's own timer thread too) and the child hangs. Such
# tests run without the quarantine (weaker use-after-free detection there;
# the other tests keep it): fork_threads hung in 1 to 3 of 14 runs with it,
# 0 of 20 without. Nothing changes in normal builds.
without_asan_quarantine() {
    if [ -n "${RPERF_TEST_PRELOAD_FIRST:-}" ]; then
        export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"
    fi
}

# retry_asan_fork_hang CMD...: runs CMD and returns its status; under the
# sanitizers only, runs it once more if it timed out (status 124). Even
# without the quarantine, GCC 12's ASan allocator is not fork-safe: a fork
# child of a process whose other threads allocate can block on a lock one
# of them held at fork, with or without the agent (tests/stress/
# fork_burst.rb with libasan preloaded, 4 runs at a time: 3 hangs in 150
# runs without the agent, 5 in 150 with it). CMD must start from a clean
# state itself. Normal builds never retry: there a hang fails the test.
retry_asan_fork_hang() {
    local rc=0
    "$@" || rc=$?
    if [ "$rc" = 124 ] && [ -n "${RPERF_TEST_PRELOAD_FIRST:-}" ]; then
        echo "# $*: timed out under ASan (see retry_asan_fork_hang); once more" >&2
        rc=0
        "$@" || rc=$?
    fi
    return "$rc"
}

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

note() {
    echo "# $*"
}

# Exports WEBRICK_LIB (and RACK_LIB): the lib folder of Debian's
# ruby-webrick, which scripts/setup unpacks into its cache too.
find_webrick_lib() {
    find_rack_lib
    local cache=${RPERF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rperf}
    WEBRICK_LIB=$(ls -d "$cache"/ruby-webrick/usr/share/rubygems-integration/all/gems/webrick-*/lib 2>/dev/null |
        head -n 1 || true)
    [ -n "$WEBRICK_LIB" ] || fail "Debian's ruby-webrick is not unpacked in $cache/ruby-webrick (scripts/setup does it)"
    export WEBRICK_LIB
}

# Exports RACK_LIB: the lib folder of Debian's ruby-rack, which
# scripts/setup unpacks into its cache; without it the test fails.
find_rack_lib() {
    local cache=${RPERF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rperf}
    RACK_LIB=$(ls -d "$cache"/ruby-rack/usr/share/rubygems-integration/all/gems/rack-*/lib 2>/dev/null |
        head -n 1 || true)
    [ -n "$RACK_LIB" ] || fail "Debian's ruby-rack is not unpacked in $cache/ruby-rack (scripts/setup does it)"
    export RACK_LIB
}

# use_test_gems NAME...: points GEM_HOME and GEM_PATH at the gems of
# RubyGems that scripts/setup installs for the project's Ruby
# (tests/gems.txt), with no RUBYOPT of the machine's; skips the test (exit
# 77) when one of them is not there. TEST_GEMS_APART=WORD: those of the
# folder of their own that gems.txt's third word names.
use_test_gems() {
    local cache=${RPERF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rperf} dir g
    dir="$cache/gems-$("$RUBY" -e 'print RUBY_VERSION')${TEST_GEMS_APART:+-$TEST_GEMS_APART}"
    for g; do
        GEM_HOME=$dir GEM_PATH=$dir "$RUBY" -e 'exit Gem::Specification.find_all_by_name(ARGV[0]).any? ? 0 : 1' "$g" || {
            echo "# skipped: the gem $g is not in $dir (scripts/setup installs it from RubyGems)"
            exit 77
        }
    done
    export GEM_HOME=$dir GEM_PATH=$dir GEM_BIN=$dir/bin
    unset RUBYOPT
}

# terminate PID SECONDS WHAT: SIGTERM to PID, as a deploy or an operator
# sends it; fails, naming the state of it and its children, when it has
# not exited within SECONDS.
terminate() {
    local pid=$1 limit=$2 i
    kill -TERM "$pid"
    for i in $(seq $((limit * 10))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
        # where each of its threads waits, for the one who reads the failure
        { command -v gdb >/dev/null && timeout 20 gdb -p "$pid" -batch -ex 'thread apply all bt 12' >&2 2>&1; } || true
        fail "$3 did not stop within $limit s of SIGTERM: $(ps -o pid,stat,wchan:20,args --ppid "$pid" -p "$pid" | tr '\n' '|')"
    fi
    wait "$pid" 2>/dev/null || true
}

# free_port: a TCP port of the loopback nobody listens on now.
free_port() {
    "$RUBY" -rsocket -e 's = TCPServer.new("127.0.0.1", 0); print s.addr[1]; s.close'
}

# wait_http URL [SECONDS]: waits until URL answers, with any status
# (default 20 s).
wait_http() {
    local url=$1 limit=${2:-20} i
    for i in $(seq $((limit * 10))); do
        curl -s -o /dev/null "$url" && return 0
        sleep 0.1
    done
    fail "$url did not answer within $limit s"
}

# profiled SESSION_DIR CMD...: runs CMD with the agent, quietly, writing
# into SESSION_DIR. Extra RPERF_* settings come from the environment.
profiled() {
    local session=$1
    shift
    LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$session" RPERF_QUIET=1 "$@"
}

# The single profile file of a session directory.
only_profile() {
    local files=("$1"/profile-*.json.gz)
    [ "${#files[@]}" -eq 1 ] && [ -f "${files[0]}" ] \
        || fail "expected exactly one profile in $1, found: $(ls -A "$1" | tr '\n' ' ')"
    echo "${files[0]}"
}

# check SUBCOMMAND ARGS...: runs the Ruby profile checker (prints figures).
check() {
    "$RUBY" "$CHECK" "$@"
}

# flat_percent REPORT_FILE LABEL: the % column of LABEL in the Flat table.
flat_percent() {
    awk -v label="$2" '
        /^ Flat:/ { in_flat = 1; next }
        /^ Cumulative:/ { in_flat = 0 }
        in_flat && index($0, "  " label " (") { sub("%", "", $3); print $3; found = 1; exit }
        END { if (!found) print 0 }' "$1"
}

# at_least VALUE MIN: numeric comparison that accepts decimals.
at_least() {
    awk -v v="$1" -v m="$2" 'BEGIN { exit !(v + 0 >= m + 0) }'
}

# sampling_bound PROFILE TRUTH_NS: the tolerance, in %, of a method's time
# in PROFILE against the TRUTH_NS the program measured: 5%, or 3 standard
# errors of the sampling where the run has too few samples for that. A
# method that takes a share p of the running time, sampled N times, is
# seen within about sqrt((1 - p) / (p N)) of its time (one standard
# error; a program's regular cycle spreads the samples more evenly than
# chance, and runs vary less than this): 2% for p = 0.9 and 300 samples,
# 5% with 30 samples (100 Hz for a few seconds).
# A third argument, THREADS, is how many threads share the samples: each
# sample then weighs the time of several of a thread's turns, and the
# error grows as the square root of that spread (sqrt(THREADS / 2) more
# for 4 threads or more).
sampling_bound() {
    local running samples
    running=$(check running "$1")
    samples=$(check field "$1" sampling_count)
    awk -v t="$2" -v r="$running" -v n="$samples" -v k="${3:-1}" 'BEGIN {
        p = t / r; if (p > 1) p = 1; if (n < 1) n = 1; f = k >= 4 ? sqrt(k / 2) : 1
        b = 300 * f * sqrt((1 - p) / (p * n)); if (b < 5) b = 5; printf "%.1f", b }'
}

# record_hot_method FILE SECONDS: `rperf record` (RPERF_TEST_RPERF) of a
# program whose Object#hot_method burns SECONDS of CPU, into FILE.
record_hot_method() {
    cat >app.rb <<RUBY
require "cpu_burn"
def hot_method = burn_cpu($2)
hot_method
RUBY
    RPERF_AGENT=$RPERF_TEST_AGENT "$RPERF_TEST_RPERF" record -o "$1" "$RUBY" app.rb 2>record.err ||
        fail "record: $(cat record.err)"
}
