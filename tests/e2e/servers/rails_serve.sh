# tests/e2e/servers/rails_serve.sh — sourced by the tests that run the
# suite's Rails application (rails_app.ru) on Puma: its gems, the
# application as ./config.ru, and
#   serve NAME ENV...   the application on Puma (4 threads) in the
#                       background, with ENV, its output in NAME.out; sets
#                       $port and $server; fails when Rails does not boot
#   stop_server NAME    SIGTERM; it must exit within 20 s
# (after tests/e2e/lib.sh).
use_test_gems puma railties actionpack activerecord sqlite3
SERVERS="$RPERF_TEST_SRC/tests/e2e/servers"
export RUBYLIB="$SERVERS:$RUBYLIB"
at_exit 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true'
cp "$SERVERS/rails_app.ru" config.ru

serve() {
    local name=$1
    shift
    port=$(free_port)
    env DATABASE_URL="sqlite3:$WORK/$name.sqlite3" "$@" "$RUBY" "$GEM_BIN/puma" -b "tcp://127.0.0.1:$port" -t 4:4 \
        config.ru >"$name.out" 2>&1 &
    server=$!
    wait_http "http://127.0.0.1:$port/up" 60 || fail "$name: Rails did not boot: $(tail -20 "$name.out")"
}

stop_server() { terminate "$server" 20 "$1: puma"; }
