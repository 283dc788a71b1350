# With a JIT — YJIT (--yjit), and on Ruby 4.0 ZJIT (--zjit) — the
# methods' shares are still right: JIT-compiled code reaches safepoints
# as the interpreter does, and rb_profile_frames reads its frames.
. "$(dirname "$0")/lib.sh"
jits=()
for jit in yjit zjit; do
    module=$(echo "$jit" | tr a-z A-Z)
    if "$RUBY" --$jit -e "exit(RubyVM::$module.enabled? ? 0 : 1)" 2>/dev/null; then
        jits+=("$jit")
    else
        note "this Ruby has no ${module} (ZJIT came with Ruby 4.0; either needs rustc at Ruby's build)"
    fi
done
if [ "${#jits[@]}" = 0 ]; then
    echo "SKIP: this Ruby has no JIT" >&2
    exit 77
fi
for jit in "${jits[@]}"; do
    module=$(echo "$jit" | tr a-z A-Z)
    cat >prog.rb <<RUBY
require "cpu_burn"
def heavy = burn_cpu(0.6)
def light = burn_cpu(0.2)
3.times { heavy; light }
puts RubyVM::$module.enabled?
RUBY
    for mode in cpu wall; do
        out=$(RPERF_MODE=$mode profiled "$jit-$mode" "$RUBY" --$jit prog.rb) || fail "prog.rb --$jit, $mode"
        [ "$out" = true ] || fail "$module was not on"
        profile=$(only_profile "$jit-$mode")
        heavy=$(check weight "$profile" Object#heavy) light=$(check weight "$profile" Object#light)
        note "$mode --$jit: heavy $((heavy / 1000000)) ms (truth 1800), light $((light / 1000000)) ms (truth 600)"
        awk -v h="$heavy" -v l="$light" 'BEGIN { r = h / (h + l); exit !(r >= 0.73 && r <= 0.77) }' \
            || fail "$mode --$jit: heavy has $heavy of $((heavy + light)) ns, truth 75%"
    done
done
