# The rperf-agent gem, as a Ruby developer installs it: `gem build` from
# the checkout, `gem install` into an empty GEM_HOME with the suite's Ruby
# (which builds the agent, rperf-attach, rperf and rperf-analyze with
# Meson against it), then from the gem's bin path: a program recorded and
# its report read (fib's own method on top); `rperf preload-path` naming
# the gem's agent, preloaded by hand; `require "rperf"` in a process
# without the agent (the API of a profiler not started); `bundle exec
# rperf record` from a Gemfile naming the gem; and a machine without a
# library's development files told which package to install, in one line.
. "$(dirname "$0")/lib.sh"
: "${RPERF_TEST_SRC:?}"
gem="$(dirname "$RUBY")/gem"
bundle="$(dirname "$RUBY")/bundle"
[ -x "$gem" ] || fail "no gem beside $RUBY"

# (in the checkout, as a developer types it: RubyGems 4 has no -C)
(cd "$RPERF_TEST_SRC" && "$gem" build rperf-agent.gemspec --output "$WORK/rperf-agent.gem") >build.log 2>&1 ||
    fail "gem build: $(tail -n 5 build.log)"
# nothing of the machine's gem settings: an empty GEM_HOME, no ~/.gemrc;
# a GEM_HOME whose name the shell and make would both read (the Makefile
# extconf.rb writes quotes its paths for each: neither file is made)
home="$WORK/gem home \$x \$(touch made_by_shell) \$(shell touch made_by_make)"
export GEM_HOME="$home" GEM_PATH="$home" HOME="$WORK"
unset BUNDLE_GEMFILE BUNDLE_PATH RUBYOPT RUBYLIB
"$gem" install --no-document --local "$WORK/rperf-agent.gem" >install.log 2>&1 ||
    fail "gem install: $(tail -n 15 install.log)"
made=$(find "$WORK" -name 'made_by_*')
[ -z "$made" ] || fail "gem install ran what its install path says: $made"
export PATH="$GEM_HOME/bin:$(dirname "$RUBY"):$PATH"
[ "$(command -v rperf)" = "$GEM_HOME/bin/rperf" ] || fail "rperf on PATH is $(command -v rperf), not the gem's"
note "installed: $(grep -m1 'Successfully installed' install.log)"

# the main job, from the gem's bin path
cp "$RPERF_TEST_SRC/examples/fib.rb" .
rperf record -o p.json.gz ruby fib.rb >rec.out 2>rec.err || fail "rperf record: $(cat rec.err)"
rperf report --top p.json.gz >top.txt || fail "rperf report --top"
first=$(awk '/Flat:/ { f = 1; next } f && NF { print; exit }' top.txt)
[[ $first == *"Object#fibonacci"* ]] || fail "fib's own method is not on top: $(cat top.txt)"
rperf-analyze stat p.json.gz >stat.txt || fail "rperf-analyze stat"
note "rperf report --top: $(echo "$first" | tr -s ' ')"

# the agent by hand, where the gem put it: a path with spaces, which
# LD_PRELOAD cannot hold (rperf record links it from a private directory;
# preload-path says to link it), preloaded through a link
agent=$(rperf preload-path 2>preload.err) || fail "rperf preload-path"
[[ $agent == "$GEM_HOME/gems/rperf-agent-"*"/librperf-agent.so" ]] || fail "rperf preload-path: $agent"
grep -q "LD_PRELOAD splits paths at spaces and colons" preload.err || fail "rperf preload-path said nothing of the spaces"
ln -s "$agent" "$WORK/agent.so"
LD_PRELOAD="$WORK/agent.so" RPERF_SESSION_DIR="$WORK/by-hand" RPERF_QUIET=1 ruby -e 'require "rperf"; exit(Rperf.running? ? 0 : 3)' ||
    fail "preloaded by hand, Rperf.running? is false"
ls by-hand/*.json.gz >/dev/null 2>&1 || fail "preloaded by hand: no profile in by-hand/"

# require "rperf" in a process without the agent: labels run, start says why not
ruby -e 'require "rperf"
    raise "running" if Rperf.running?
    raise "label" unless Rperf.label(job: "a") { 42 } == 42
    begin
      Rperf.start
      raise "started"
    rescue RuntimeError => e
      raise e.message unless e.message.include?("LD_PRELOAD")
    end' 2>err.txt || fail "require \"rperf\" without the agent: $(cat err.txt)"

# man rperf, man rperf-analyze: beside the gem's bin directory, found from PATH
unset MANPATH
page=$(man -w rperf 2>&1) || fail "man -w rperf: $page"
[ "$page" = "$GEM_HOME/share/man/man1/rperf.1" ] || fail "man rperf finds $page"
MANWIDTH=80 man rperf-analyze 2>/dev/null | grep -q "^       rperf-analyze - read, merge and render rperf profiles" ||
    fail "man rperf-analyze: $(MANWIDTH=80 man rperf-analyze 2>&1 | head -5)"

# the container recipe (docs/install.md): a server with the agent preloaded
# dormant, a recording started and stopped from outside with rperf ctl
cat >server.rb <<'RUBY'
def handle = 20_000.times { }
File.write("ready", "")
loop { handle; sleep 0.001 }
RUBY
LD_PRELOAD="$WORK/agent.so" RPERF_ENABLED=0 RPERF_SESSION_DIR="$WORK/dormant" ruby server.rb &
server=$!
for _ in $(seq 100); do [ -e ready ] && break; sleep 0.1; done
[ -e ready ] || fail "the dormant server did not start"
rperf ctl "$server" start -m wall >ctl.out 2>&1 || fail "rperf ctl start: $(cat ctl.out)"
sleep 1
rperf ctl "$server" stop -o incident.json.gz >>ctl.out 2>&1 || fail "rperf ctl stop: $(cat ctl.out)"
kill "$server"; wait "$server" 2>/dev/null || true
rperf-analyze report --top 5 incident.json.gz >incident.txt || fail "report of the ctl recording"
grep -q "Object#handle (server.rb)" incident.txt || fail "Object#handle is not in the ctl recording: $(cat incident.txt)"
[ ! -e dormant ] || [ -z "$(ls dormant)" ] || fail "the dormant agent wrote files: $(ls dormant)"

# a Gemfile naming the gem: bundle exec rperf record
mkdir app
printf 'source "https://rubygems.org"\ngem "rperf-agent"\n' >app/Gemfile
printf 'require "rperf"\ndef work = Rperf.label(job: "nightly") { 2_000_000.times { } }\nwork\n' >app/job.rb
(cd app && "$bundle" install --local >bundle.log 2>&1) || fail "bundle install --local: $(tail -n 5 app/bundle.log)"
(cd app && "$bundle" exec rperf record -o job.json.gz -- ruby job.rb >rec.out 2>rec.err) ||
    fail "bundle exec rperf record: $(cat app/rec.err)"
(cd app && "$bundle" exec rperf-analyze report --by job job.json.gz) >by.txt || fail "bundle exec rperf-analyze"
grep -q " nightly$" by.txt || fail "the label is not in the profile: $(cat by.txt)"
note "bundle exec rperf record: $(grep ' nightly$' by.txt | tr -s ' ')"

# a machine without the libraries' development files: one line naming them
rc=0
PKG_CONFIG_LIBDIR=/nonexistent GEM_HOME="$WORK/home2" GEM_PATH="$WORK/home2" \
    "$gem" install --no-document --local "$WORK/rperf-agent.gem" >missing.log 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "gem install without jansson's development files succeeded"
line=$(grep "^rperf-agent: cannot build:" missing.log) || fail "no one-line reason: $(cat missing.log)"
[[ $line == *"jansson"*"apt-get install"*"libjansson-dev"* ]] || fail "the reason names no package: $line"
note "$line"
note "gem_install ok"
