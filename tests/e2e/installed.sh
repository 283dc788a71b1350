# `meson install` gives a working rperf: the front end, the analyzer, the
# agent and the Rperf API's Ruby files (agent/ruby/) and extension
# (rperf/rperf_agent.so, agent/ext/) beside it. Installed
# into a scratch DESTDIR, a program requiring "rperf/rack" is recorded
# with the installed `rperf` and its label read back.
. "$(dirname "$0")/lib.sh"
: "${RPERF_TEST_BUILD_ROOT:?}"

meson install -C "$RPERF_TEST_BUILD_ROOT" --no-rebuild --quiet --destdir "$WORK/inst" >install.log 2>&1 \
    || fail "meson install: $(tail -n 5 install.log)"
bin=$(find "$WORK/inst" -path '*/bin/rperf' | head -n 1)
lib=$(dirname "$(find "$WORK/inst" -name librperf-agent.so | head -n 1)")
[ -x "$bin" ] || fail "rperf not installed"
for f in rperf.rb rperf/version.rb rperf/rack.rb rperf/sidekiq.rb rperf/active_job.rb; do
    [ -f "$lib/rperf/ruby/$f" ] || fail "$f not installed in $lib/rperf/ruby"
done
[ -f "$lib/rperf/ruby/rperf/rperf_agent.so" ] || fail "the extension is not installed in $lib/rperf/ruby"

cat >app.rb <<'RUBY'
require "rperf/rack"
require "cpu_burn"
raise "not the installed API: #{$LOAD_PATH.first}" unless $LOAD_PATH.first.end_with?("/rperf/ruby")
app = Rperf::RackMiddleware.new(->(env) { burn_cpu(0.1); [200, {}, ["ok"]] })
2.times { |i| app.call("REQUEST_METHOD" => "GET", "PATH_INFO" => "/items/#{i}") }
RUBY
PATH="$(dirname "$RUBY"):$PATH" "$bin" record -o p.json.gz "$RUBY" app.rb >rec.out 2>rec.err \
    || fail "installed rperf record: $(cat rec.err)"
"$(dirname "$bin")/rperf-analyze" report --by endpoint p.json.gz >by.txt || fail "report --by"
grep -q "GET /items/:id" by.txt || fail "label missing: $(cat by.txt)"
note "installed in $lib: $(grep 'GET /items' by.txt | sed 's/^ *//')"
"$bin" help >manual.txt && grep -q "^DIAGNOSING COMMON PERFORMANCE PROBLEMS$" manual.txt \
    || fail "the installed rperf has no manual: $(head -3 manual.txt)"

# the man pages, made from the programs' own manuals
for page in rperf rperf-analyze; do
    file=$(find "$WORK/inst" -path "*/man1/$page.1" | head -n 1)
    [ -f "$file" ] || fail "$page.1 not installed"
    MANWIDTH=80 man -l "$file" 2>/dev/null | grep -q "^NAME" || fail "$page.1 does not render: $(man -l "$file" 2>&1 | head -3)"
done
MANWIDTH=80 man -l "$(find "$WORK/inst" -path '*/man1/rperf.1')" 2>/dev/null | grep -q "^DIAGNOSING COMMON PERFORMANCE PROBLEMS" ||
    fail "rperf.1 has not the manual's sections"

# One version everywhere: meson.build's, as the command, the analyzer, the
# Ruby API and the profile file each state it.
version=$(meson introspect --projectinfo "$RPERF_TEST_BUILD_ROOT" | "$RUBY" -rjson -e 'print JSON.parse(STDIN.read)["version"]')
[ "$("$bin" --version)" = "rperf $version" ] || fail "rperf --version: $("$bin" --version), meson.build: $version"
[ "$("$(dirname "$bin")/rperf-analyze" --version)" = "rperf-analyze $version" ] || fail "rperf-analyze --version"
api=$(RPERF_QUIET=1 RPERF_SESSION_DIR="$WORK/v" LD_PRELOAD="$lib/librperf-agent.so" "$RUBY" -e 'require "rperf"; print Rperf::VERSION')
[ "$api" = "$version" ] || fail "Rperf::VERSION is $api, meson.build says $version"
file_version=$("$RUBY" -rjson -rzlib -e 'print JSON.parse(Zlib.gunzip(File.binread(ARGV[0])))["rperf_version"]' p.json.gz)
[ "$file_version" = "$version" ] || fail "the profile says rperf_version $file_version"
note "version $version in rperf, rperf-analyze, Rperf::VERSION and the file"

# The extension beside a preloaded core of another version (its table of
# another ABI) refuses in one line; it reads nothing of the table.
rc=0
out=$(LD_PRELOAD="$RPERF_TEST_FAKE_CORE" "$RUBY" -I "$lib/rperf/ruby" -e 'require "rperf"' 2>&1) || rc=$?
[ "$rc" = 1 ] || fail "extension beside a core of another ABI: exit status $rc: $out"
echo "$out" | grep -q "is not the extension of the preloaded agent (a different build or install)" \
    || fail "extension beside a core of another ABI: $out"
note "beside a core of another ABI: $(echo "$out" | head -n 1 | sed 's/^.*rperf: /rperf: /' | cut -c1-90)..."
