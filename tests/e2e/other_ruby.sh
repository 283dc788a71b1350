# An agent built for one Ruby, preloaded into another (Debian's Ruby 3.1,
# and the other of the two Rubies the suite builds, RPERF_TEST_OTHER_RUBY:
# 4.0 for a 3.4 build, 3.4 for a 4.0 one): the program runs as without it
# — the same stdout, the same exit status, its stderr with one line more
# at most, naming both versions, when recording was asked for, and none
# in a dormant process (RPERF_ENABLED=0) — forking and spawning Rubies of
# its own; nothing is written. rperf attach into such a process names the
# Ruby version it found, whatever its libruby is called
# (libruby-3.1.so.3.1 for Debian's).
. "$(dirname "$0")/lib.sh"

built=$("$RUBY" -e 'print RUBY_VERSION[/\A\d+\.\d+/]')
others=()
for r in "${RPERF_TEST_OTHER_RUBY:-}" /usr/bin/ruby; do
    [ -n "$r" ] && [ -x "$r" ] || continue
    v=$("$r" -e 'print RUBY_VERSION' 2>/dev/null) || continue
    [ "${v%.*}" != "$built" ] && others+=("$r")
done
if [ "${#others[@]}" = 0 ]; then
    echo "# no Ruby other than $built here (RPERF_TEST_OTHER_RUBY unset, no /usr/bin/ruby)"
    exit 77
fi

cat >prog.rb <<'RUBY'
puts "out #{RUBY_VERSION}"
$stderr.puts "err"
pid = fork { puts "child"; exit!(0) }
Process.wait(pid)
system(RbConfig.ruby, "-e", "puts :spawned")
exit 3
RUBY

for other in "${others[@]}"; do
    version=$("$other" -e 'print RUBY_VERSION')
    rc=0
    "$other" prog.rb >want.out 2>want.err || rc=$?
    [ "$rc" = 3 ] || fail "$other prog.rb alone: status $rc"
    for enabled in 1 0; do
        rc=0
        LD_PRELOAD="$PRELOAD" RPERF_ENABLED=$enabled RPERF_SESSION_DIR="$WORK/s$version-$enabled" \
            "$other" prog.rb >got.out 2>got.err || rc=$?
        what="Ruby $version, RPERF_ENABLED=$enabled"
        [ "$rc" = 3 ] || fail "$what: exit status $rc, 3 without the agent; stderr: $(cat got.err)"
        cmp -s want.out got.out || fail "$what: stdout changed: $(cat got.out)"
        extra=$(grep -vxF -f want.err got.err || true)
        if [ "$enabled" = 0 ]; then
            [ -z "$extra" ] || fail "$what: a dormant process said: $extra"
        else
            # One line for the root; its fork child and its spawned Ruby
            # are asked too, and each says so once.
            lines=$(printf '%s\n' "$extra" | grep -c . || true)
            [ "$lines" -ge 1 ] && [ "$lines" -le 3 ] || fail "$what: expected a line per Ruby process, got: $extra"
            printf '%s\n' "$extra" | grep -qv "runs Ruby $version (.*) and this agent is built for Ruby $built" &&
                fail "$what: unexpected lines: $extra"
            note "$what: $(printf '%s\n' "$extra" | head -n 1)"
        fi
        [ -z "$(ls -A "$WORK/s$version-$enabled" 2>/dev/null)" ] ||
            fail "$what: wrote $(ls -A "$WORK/s$version-$enabled")"
    done

    if [ -n "${RPERF_TEST_ATTACH:-}" ] && [ -z "${RPERF_TEST_PRELOAD_FIRST:-}" ]; then
        "$other" -e 'puts :ready; $stdout.flush; sleep 30' >ready.out &
        pid=$!
        for _ in $(seq 100); do [ -s ready.out ] && break; sleep 0.05; done
        rc=0
        "$RPERF_TEST_RPERF" attach -d 1 "$pid" >attach.out 2>attach.err || rc=$?
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        [ "$rc" != 0 ] || fail "rperf attach into Ruby $version succeeded"
        grep -q "runs Ruby $version; this agent is built for Ruby $built" attach.err ||
            fail "rperf attach into Ruby $version: $(cat attach.err)"
        note "attach, Ruby $version: $(cat attach.err)"
    fi
done
