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
    # (the program times each call on the wall clock too: in wall mode that
    # is the truth, which a loaded machine moves — burn_cpu burns CPU time,
    # and a call the OS starved took longer; 79% for 75% seen beside two
    # busy loops)
    cat >prog.rb <<RUBY
require "cpu_burn"
\$wall = Hash.new(0)
def timed(name) = (t = Process.clock_gettime(Process::CLOCK_MONOTONIC); yield; \$wall[name] += Process.clock_gettime(Process::CLOCK_MONOTONIC) - t)
def heavy = burn_cpu(0.6)
def light = burn_cpu(0.2)
3.times { timed(:heavy) { heavy }; timed(:light) { light } }
puts RubyVM::$module.enabled?
puts format("%.4f", \$wall[:heavy] / (\$wall[:heavy] + \$wall[:light]))
RUBY
    for mode in cpu wall; do
        out=$(RPERF_MODE=$mode profiled "$jit-$mode" "$RUBY" --$jit prog.rb) || fail "prog.rb --$jit, $mode"
        [ "$(head -n 1 <<<"$out")" = true ] || fail "$module was not on"
        truth=0.75
        [ "$mode" = cpu ] || truth=$(tail -n 1 <<<"$out")
        profile=$(only_profile "$jit-$mode")
        heavy=$(check weight "$profile" Object#heavy) light=$(check weight "$profile" Object#light)
        note "$mode --$jit: heavy $((heavy / 1000000)) ms, light $((light / 1000000)) ms; heavy's share truth $truth"
        awk -v h="$heavy" -v l="$light" -v t="$truth" 'BEGIN { r = h / (h + l); exit !(r >= t - 0.02 && r <= t + 0.02) }' \
            || fail "$mode --$jit: heavy has $heavy of $((heavy + light)) ns, truth $truth"
    done
done
