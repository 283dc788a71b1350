# with_static_ruby.sh TEST.sh: runs an end-to-end test against the ruby
# built without --enable-shared (Ruby linked into the executable, symbols
# exported) that scripts/setup builds when RPERF_STATIC_RUBY=1 and
# scripts/test names in RPERF_TEST_STATIC_RUBY: the same LD_PRELOAD must
# profile it. Without one (a plain `meson test`), a SKIP saying so.
set -euo pipefail
static=${RPERF_TEST_STATIC_RUBY:-}
if [ -z "$static" ]; then
    echo "SKIP: RPERF_TEST_STATIC_RUBY is not set: scripts/test builds a static ruby for each build, from Debian's source for 3.4 and from ../shared/ruby for 4.0, and names it" >&2
    exit 77
fi
[ -x "$static" ] || { echo "FAIL: RPERF_TEST_STATIC_RUBY=$static is not an executable" >&2; exit 1; }
"$static" -e 'exit(RbConfig::CONFIG["ENABLE_SHARED"] == "no" ? 0 : 1)' ||
    { echo "FAIL: $static is not a ruby built without --enable-shared" >&2; exit 1; }
# scripts/test names the static Ruby of each build's version; one of
# another version (a hand-run meson test) cannot be profiled by this build.
have=$("$static" -e 'print RUBY_VERSION[/\A\d+\.\d+/]') want=$("$RPERF_TEST_RUBY" -e 'print RUBY_VERSION[/\A\d+\.\d+/]')
if [ "$have" != "$want" ]; then
    echo "SKIP: the static ruby scripts/test builds is Ruby $have; this build is for Ruby $want" >&2
    exit 77
fi
export RPERF_TEST_RUBY=$static
exec bash "$1"
