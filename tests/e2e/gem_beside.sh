# The rperf gem itself (0.9.0 from RubyGems, its C extension built) loaded
# by a program the agent is preloaded into — its lib first on the load
# path, as a Gemfile or the gem's own benchmark scripts put it. Both claim
# SIGRTMIN+8: before, the agent's ticks doubled the gem's samples and the
# gem's stop removed the session directory the agent was to write into.
# Now the agent stands aside when the gem takes the signal, in one line,
# having written its profile; the gem's session counts its own ticks only.
. "$(dirname "$0")/lib.sh"
TEST_GEMS_APART=beside use_test_gems rperf
gem_lib=$(GEM_HOME=$GEM_HOME "$RUBY" -e 'print Gem::Specification.find_by_name("rperf").full_gem_path' 2>/dev/null)/lib
[ -f "$gem_lib/rperf.rb" ] || fail "the rperf gem's lib is not at $gem_lib"

cat >with_gem.rb <<'RUBY'
$LOAD_PATH.unshift(ARGV[0])
require "rperf"
abort "not the gem's Rperf: #{$LOADED_FEATURES.grep(/rperf/).inspect}" unless Rperf.respond_to?(:_c_start, true)
def burn(s) = (t = Process.clock_gettime(Process::CLOCK_MONOTONIC) + s; nil while Process.clock_gettime(Process::CLOCK_MONOTONIC) < t)
burn(0.5)
data = Rperf.start(frequency: 1000, mode: :wall) { burn(1.0) }
puts "gem samples #{data[:sampling_count]}"
burn(0.3)
puts "done"
RUBY

# the agent whole-process, the gem's session inside the program
mkdir session
LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/session" "$RUBY" with_gem.rb "$gem_lib" >out.txt 2>err.txt ||
    fail "the program failed beside the gem: $(cat err.txt)"
grep -q '^done$' out.txt || fail "the program did not finish: $(cat out.txt err.txt)"
samples=$(awk '$1 == "gem" { print $3 }' out.txt)
# a second of 1000 Hz: about a thousand, fewer on a loaded machine (the
# gem's timer signals wait for a core too: 699 beside two busy loops), two
# thousand when the agent's ticks were the gem's too
[ "$samples" -ge 400 ] && [ "$samples" -le 1300 ] || fail "the gem's session has $samples samples for 1 s at 1000 Hz"
[ "$(grep -c 'the agent stands aside' err.txt)" = 1 ] || fail "the agent did not say once that it stands aside: $(cat err.txt)"
profile=$(only_profile "$WORK/session")
duration=$("$RUBY" "$CHECK" field "$profile" duration_ns)
# it ended at the gem's Rperf.start: after the first burn, before the second
awk -v d="$duration" 'BEGIN { exit !(d >= 400e6 && d < 1200e6) }' ||
    fail "the agent's profile lasted $((duration / 1000000)) ms; it should end at the gem's start, 0.5 s in"
grep -q "written to $profile" err.txt || fail "the line does not name the profile written ($profile): $(cat err.txt)"
note "beside the gem: its session $samples samples for 1 s at 1000 Hz; the agent stood aside in one line after $((duration / 1000000)) ms, its profile written"

# a dormant agent: nothing to stand aside from, the gem profiles alone
LD_PRELOAD="$PRELOAD" RPERF_ENABLED=0 "$RUBY" with_gem.rb "$gem_lib" >out2.txt 2>err2.txt ||
    fail "the program failed beside the gem, agent dormant: $(cat err2.txt)"
samples=$(awk '$1 == "gem" { print $3 }' out2.txt)
[ "$samples" -ge 400 ] && [ "$samples" -le 1300 ] || fail "dormant agent: the gem's session has $samples samples"
[ ! -s err2.txt ] || fail "a dormant agent said something beside the gem: $(cat err2.txt)"
note "dormant agent beside the gem: the gem's $samples samples, not a word from the agent"
