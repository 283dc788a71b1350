# The manual cannot drift from the program: tests/e2e/docs/manual.rb reads
# README.md and docs/ (every link to a file or heading that is there, every
# page linked from the README, the README under 400 lines) and takes out
# every ```sh block; each is then run as shown, with bash -e, by the
# project's rperf and rperf-analyze on PATH, in a directory holding what
# the blocks name: the examples, a profile rperf.json.gz, sessions before/
# and after/ and ./rperf-12345/ (parts with allocations), a.json.gz,
# b.json.gz and c.pb.gz, an allocating app.rb, bench.rb in a git
# repository, a Gemfile with a Rakefile whose test task runs a program; the
# process number 4242 stands for a server the test starts, its agent
# preloaded dormant. A block that fails fails the test, naming its page
# and line.
. "$(dirname "$0")/lib.sh"
: "${RPERF_TEST_SRC:?}"

mkdir blocks bin
"$RUBY" "$RPERF_TEST_SRC/tests/e2e/docs/manual.rb" "$RPERF_TEST_SRC" blocks >manual.out 2>manual.err ||
    fail "the manual: $(cat manual.err)"
note "$(cat manual.out)"

# the commands as a user has them on PATH
ln -s "$RPERF_TEST_RPERF" bin/rperf
ln -s "$ANALYZE" bin/rperf-analyze
export PATH="$WORK/bin:$(dirname "$RUBY"):$PATH" RPERF_AGENT="$RPERF_TEST_AGENT"
unset DISPLAY WAYLAND_DISPLAY RUBYOPT BUNDLE_GEMFILE
export BUNDLE_USER_HOME="$WORK/bundle-home" BUNDLE_APP_CONFIG="$WORK/bundle-config"

mkdir home && cd home || fail "cd home"
cp -r "$RPERF_TEST_SRC/examples" .
git init -q && git -c user.name=docs -c user.email=docs@example.com commit -q --allow-empty -m "the docs' repository" ||
    fail "git init"
cat >bench.rb <<'RUBY'
def step = 200_000.times.sum
20.times { step }
RUBY
cat >app.rb <<'RUBY'
Row = Struct.new(:id, :name)
def load_rows = Array.new(20_000) { |i| Row.new(i, "row #{i}") }
$kept = []
30.times { |i| rows = load_rows; $kept << rows.first(500) }
RUBY
# a program that keeps more objects part after part
cat >grow.rb <<'RUBY'
$cache = []
def remember(n) = n.times { |i| $cache << "entry #{i}" }
25.times { remember(4_000); sleep 0.1 }
RUBY
cat >work.rb <<'RUBY'
def work(n) = n.times.sum { |i| i * i }
work(ARGV.fetch(0).to_i)
RUBY
RPERF_QUIET=1 profiled rperf-12345 env RPERF_INTERVAL=1 RPERF_ALLOC=64 "$RUBY" grow.rb || fail "the session of parts"
rperf record -o rperf.json.gz ruby examples/fib.rb >/dev/null 2>&1 || fail "rperf.json.gz"
RPERF_QUIET=1 profiled before "$RUBY" work.rb 300000 || fail "before/"
RPERF_QUIET=1 profiled after "$RUBY" work.rb 600000 || fail "after/"
rperf record -o before.json.gz ruby work.rb 300000 >/dev/null 2>&1 || fail "before.json.gz"
rperf record -o after.json.gz ruby work.rb 600000 >/dev/null 2>&1 || fail "after.json.gz"
cp before.json.gz a.json.gz
rperf record -o b.json.gz ruby work.rb 400000 >/dev/null 2>&1 || fail "b.json.gz"
"$ANALYZE" convert --pprof -o c.pb.gz after.json.gz || fail "c.pb.gz"
printf 'source "https://rubygems.org"\ngem "rake"\n' >Gemfile
printf 'task(:test) { ruby "examples/threads.rb" }\n' >Rakefile
bundle install --local >bundle.log 2>&1 || fail "bundle install --local (rake): $(tail -n 5 bundle.log)"

# 4242: a server, the agent preloaded dormant
cat >server.rb <<'RUBY'
def handle = 20_000.times { }
File.write("server.ready", "")
loop { handle; sleep 0.001 }
RUBY
LD_PRELOAD="$RPERF_TEST_AGENT" RPERF_ENABLED=0 RPERF_SESSION_DIR="$WORK/server-session" "$RUBY" server.rb &
server=$!
at_exit 'kill "$server" 2>/dev/null'
for _ in $(seq 100); do [ -e server.ready ] && break; sleep 0.1; done
[ -e server.ready ] || fail "the server for 4242 did not start"

ran=0
for block in "$WORK"/blocks/*.sh; do
    where=$(head -n 1 "$block" | cut -c3-)
    sed "s/\b4242\b/$server/g" "$block" >run.sh
    rc=0
    timeout 120 bash -e -o pipefail run.sh >run.out 2>&1 || rc=$?
    [ "$rc" = 0 ] || fail "$where: the block exits $rc:
$(cat run.sh)
--- its output:
$(tail -n 20 run.out)"
    ran=$((ran + 1))
    note "$where: $(grep -c . "$block") lines ok"
done
[ "$ran" -ge 8 ] || fail "only $ran sh blocks: the manual lost its commands?"
note "docs_commands ok: $ran blocks"
