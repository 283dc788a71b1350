# The suite's Rails application (tests/e2e/servers/rails_app.ru: Rails 8
# with ActiveRecord on SQLite) on Puma with four threads, recorded in wall
# mode, as a Rails developer opens it in the viewer: the first screen,
# with no click, must show the controller actions among its widest boxes
# (the time inside requests, the application's code first); a click on an
# action in Top must root the graph at it, its total the time the
# requests table gives its endpoint; and the diff against the same
# application with one action 30% slower (RAILS_SLOW_SLEEP=0.065: /slow
# sleeps 65 ms rather than 50) must paint red that action's own frames,
# not its ancestors, and list them first in Top's change column
# (rails_test.js, with screenshots). The slower action waits off the GVL:
# a slower CPU-bound one would make the others wait longer for the GVL,
# wherever they wait for it, which is a change of theirs too.
. "$RPERF_TEST_SRC/tests/browser/lib.sh"
. "$RPERF_TEST_SRC/tests/e2e/servers/rails_serve.sh"

record() { # record NAME ENV...: the application under the agent, its client's requests
    local name=$1
    shift
    serve "$name" LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/$name" RPERF_MODE=wall RPERF_QUIET=1 "$@"
    # 100 posts, 40 of /cpu, 120 of /slow: the change (120 x 15 ms) well
    # above what Rails' own time moves between two runs on a loaded machine
    "$RUBY" "$SERVERS/rails_client.rb" "$port" "$name.lat" 100 40 120 >"$name.txt" || fail "$name: the client failed"
    stop_server "$name"
}
record base
record slower RAILS_SLOW_SLEEP=0.065
"$ANALYZE" convert --html -o "$WORK/rails.html" "$WORK/base" || fail "convert --html"
"$ANALYZE" requests --json "$WORK/base" >"$WORK/requests.json" || fail "requests --json"
"$ANALYZE" diff --html -o "$WORK/diff.html" "$WORK/base" "$WORK/slower" || fail "diff --html"
export RAILS_PAGE="$WORK/rails.html" RAILS_DIFF_PAGE="$WORK/diff.html" RAILS_REQUESTS_JSON="$WORK/requests.json"
export RAILS_SCREENSHOTS="${RPERF_TEST_ARTIFACTS:-$WORK}"
node "$browser_dir/rails_test.js"
