# The profiled program behaves as without the agent: stdout, stderr, stdin,
# exit status, uncaught exceptions; and a profile is written in each case.
# Without RPERF_QUIET the root adds exactly one line naming the session.
. "$(dirname "$0")/lib.sh"

cat >prog.rb <<'RUBY'
at_exit { puts "at_exit ran" }
line = $stdin.gets
puts "read: #{line}"
$stderr.puts "to stderr"
puts ARGV.inspect
case ARGV[0]
when "exit7" then exit 7
when "raise" then raise ArgumentError, "boom"
end
RUBY

compare() {
    local name=$1
    shift
    local rc_plain=0 rc_agent=0
    echo "input line" | "$RUBY" prog.rb "$@" >plain.out 2>plain.err || rc_plain=$?
    echo "input line" | profiled "$WORK/$name" "$RUBY" prog.rb "$@" >agent.out 2>agent.err || rc_agent=$?
    [ "$rc_plain" = "$rc_agent" ] || fail "$name: exit status $rc_agent, expected $rc_plain"
    cmp -s plain.out agent.out || fail "$name: stdout differs: $(diff plain.out agent.out)"
    # Backtraces name the script; everything else must match exactly.
    cmp -s plain.err agent.err || fail "$name: stderr differs: $(diff plain.err agent.err)"
    only_profile "$WORK/$name" >/dev/null
    note "$name: exit $rc_plain, output unchanged, profile written"
}

compare normal
compare exit7 exit7
compare raise raise

# The program's own environment is exactly what it would be without the
# agent (the session reaches children only through their exec).
env_of() {
    env LD_PRELOAD="$1" RPERF_QUIET=1 "$RUBY" -e '
        puts ENV.sort.map { |k, v| "#{k}=#{v}" unless k == "LD_PRELOAD" }.compact
        puts "-- a Ruby child, then a shell child:"
        system(RbConfig.ruby, "-e", %q(puts ENV.keys.grep(/RPERF/).sort))
        system("env | grep RPERF | sort")'
}
mkdir envs && cd envs
env_of "$RPERF_TEST_EMPTY_PRELOAD" >../env.plain
env_of "$PRELOAD" >../env.agent
cd ..
cmp -s env.plain env.agent || fail "the agent changed the environment: $(diff env.plain env.agent)"
[ "$(ls envs | grep -c '^rperf-')" = 1 ] || fail "the Ruby child did not write into the root's session: $(ls envs)"
[ "$(ls envs/rperf-*/ | wc -l)" = 2 ] || fail "expected the root's and the child's profile: $(ls envs/rperf-*)"

# The one line the root adds when not quiet.
rc=0
echo x | LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/loud" "$RUBY" prog.rb exit7 >/dev/null 2>loud.err || rc=$?
[ "$rc" = 7 ] || fail "exit status $rc with the announcement"
grep -v "^to stderr$" loud.err >extra.err || true
cat extra.err
[ "$(wc -l <extra.err)" -eq 1 ] || fail "expected one extra stderr line, got: $(cat extra.err)"
grep -q "^rperf: 1 profile in $WORK/loud — analyze with: rperf-analyze stat $WORK/loud$" extra.err \
    || fail "unexpected announcement: $(cat extra.err)"

# Default session directory: ./rperf-<pid>/ in the working directory, 0700.
mkdir cwd && cd cwd
LD_PRELOAD="$PRELOAD" RPERF_QUIET=1 "$RUBY" -e 'puts $$' >pid.txt
dir="rperf-$(cat pid.txt)"
[ -d "$dir" ] || fail "default session directory $dir not created"
[ "$(stat -c %a "$dir")" = 700 ] || fail "$dir has mode $(stat -c %a "$dir")"
only_profile "$dir" >/dev/null

# A program that does not require "rperf" sees no constant, global or
# loaded feature of the agent's; its one trace is the agent's Ruby folder
# first on $LOAD_PATH (docs/api.md).
world() {
    env LD_PRELOAD="$1" RPERF_QUIET=1 RPERF_SESSION_DIR="$WORK/world" "$RUBY" -e '
        puts Object.constants.sort, global_variables.sort, $LOADED_FEATURES
        puts "-- load path:", $LOAD_PATH'
}
world "$RPERF_TEST_EMPTY_PRELOAD" >world.plain
world "$PRELOAD" >world.agent
diff world.plain world.agent | grep '^[<>]' >world.diff || true
[ "$(wc -l <world.diff)" = 1 ] && grep -q '^> /.*/ruby$' world.diff \
    || fail "the agent changed more than one \$LOAD_PATH entry: $(cat world.diff)"
sed -n '/^-- load path:/{n;p;q}' world.agent | grep -q '/ruby$' \
    || fail "the agent's Ruby folder is not first on \$LOAD_PATH"
note "without require \"rperf\": one \$LOAD_PATH entry ($(cat world.diff)), nothing else"
