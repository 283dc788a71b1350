# tests/browser/lib.sh — what every browser test script starts with: the
# e2e helpers (tests/e2e/lib.sh), Debian's chromium (a SKIP, exit 77,
# naming why when it is missing) and puppeteer-core (installed by
# scripts/setup).
. "$RPERF_TEST_SRC/tests/e2e/lib.sh"
browser_dir="$RPERF_TEST_SRC/tests/browser"
chromium=${RPERF_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
    echo "SKIP: $chromium is missing: scripts/setup installs Debian's chromium package; it could not here" >&2
    exit 77
fi
[ -d "$browser_dir/node_modules/puppeteer-core" ] \
    || fail "puppeteer-core is not installed in $browser_dir (scripts/setup runs npm ci there)"
export VIEWER_CHROMIUM="$chromium"
