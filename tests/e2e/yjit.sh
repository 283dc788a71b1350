# With YJIT (--yjit) the methods' shares are still right: JIT-compiled
# code reaches safepoints as the interpreter does.
. "$(dirname "$0")/lib.sh"
"$RUBY" --yjit -e 'exit(RubyVM::YJIT.enabled? ? 0 : 1)' 2>/dev/null || {
    echo "SKIP: this Ruby has no YJIT" >&2
    exit 77
}
cat >prog.rb <<'RUBY'
require "cpu_burn"
def heavy = burn_cpu(0.6)
def light = burn_cpu(0.2)
3.times { heavy; light }
puts RubyVM::YJIT.enabled?
RUBY
for mode in cpu wall; do
    out=$(RPERF_MODE=$mode profiled "$mode" "$RUBY" --yjit prog.rb) || fail "prog.rb --yjit, $mode"
    [ "$out" = true ] || fail "YJIT was not on"
    profile=$(only_profile "$mode")
    heavy=$(check weight "$profile" Object#heavy) light=$(check weight "$profile" Object#light)
    note "$mode --yjit: heavy $((heavy / 1000000)) ms (truth 1800), light $((light / 1000000)) ms (truth 600)"
    awk -v h="$heavy" -v l="$light" 'BEGIN { r = h / (h + l); exit !(r >= 0.73 && r <= 0.77) }' \
        || fail "$mode --yjit: heavy has $heavy of $((heavy + light)) ns, truth 75%"
done
