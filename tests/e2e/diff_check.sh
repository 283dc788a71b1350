# The regression gate, rperf diff --check PCT, at the threshold a real
# gate uses: Object#m and Object#n both call Object#burn, which spends
# its time in a loop around Process.clock_gettime; a copy of the program
# with m 30% slower (it has burn do 30% more) must name Object#m — not the
# shared burn or clock_gettime — with the call path where its time went,
# exit status 1, in 20 repetitions out of 20 (eight runs a side, drawn from
# ten of each: on a loaded machine five can miss it, see below); the same
# program on both sides must name none, exit 0, in
# 20 out of 20 (with base and target runs interleaved, as a CI job records
# them). On a loaded machine: the suite runs it beside the rest, and
# each path's time is measured against the rest of its run, which what the
# machine does to a run moves alike. One run per side names none and says
# why; --json says the same for machines. The base's runs are session
# directories (a directory of directories), the target's profile files (a
# directory of files).
. "$(dirname "$0")/lib.sh"
export RPERF_AGENT=$RPERF_TEST_AGENT RPERF_FREQUENCY=4000 # (rperf record: -f 4000)
RPERF="$RPERF_TEST_RPERF"

program() {
    cat <<RUBY
def burn(k)
  i = 0
  while i < k
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
    i += 1
  end
end
def m = burn($1)
def n = burn(100_000)
32.times { m; n }
RUBY
}
# (calls of about 5 ms each, not 1: a late tick on a busy core weighs the
# CPU since the sample before, which then lies within the call it is
# given to, where with 1 ms calls it spanned m and n alike)
# the same file, app.rb, before and after the change (as a CI job sees it)
mkdir before after runs runs/slower
program 100_000 >before/app.rb
program 130_000 >after/app.rb
# (interleaved, as a benchmark's rounds are: what the machine does meanwhile
# falls on both sides alike)
for i in $(seq 20); do
    (cd before && profiled "$WORK/runs/same-$i" "$RUBY" app.rb) || fail "app.rb before, run $i"
    [ "$i" -gt 10 ] ||
        (cd after && "$RPERF" record -f 4000 -o "$WORK/runs/slower/$i.json.gz" "$RUBY" app.rb 2>/dev/null) || fail "app.rb after, run $i"
done

# side NAME DIR RUN...: a directory NAME of the given runs of DIR
side() {
    local name=$1 dir=$2 run
    shift 2
    mkdir "$name"
    for run; do ln -s "$dir/$run" "$name/$run"; done
}
# rows FILE: the table's rows (a method each)
rows() { awk '/^ +base ms\/run/ { f = 1; next } f && /^ +[0-9]/' "$1"; }

# Runs a side. Five find it on a quiet machine; with the suite beside it, a
# run whose samples lump (the agent's ticks late on a busy core: a sample
# then weighs many milliseconds of CPU, all given to the call current at
# the time) can put m against n 15% off in one run of five, and the rank
# test of five against five has no room for it (CI missed m once in 20 at
# 5 against 5, both at p < 0.01 and at p < 0.05): eight against eight has.
RUNS=8

# m 30% slower: 20 repetitions, RUNS a side drawn from ten
found=0 power=""
for rep in $(seq 20); do
    mapfile -t b < <(seq 20 | shuf --random-source=<(yes "b$rep") | head -"$RUNS")
    mapfile -t t < <(seq 10 | shuf --random-source=<(yes "t$rep") | head -"$RUNS")
    side "base$rep" "$WORK/runs" "${b[@]/#/same-}"
    side "target$rep" "$WORK/runs/slower" "${t[@]/%/.json.gz}"
    rc=0
    "$RPERF" diff --check 10 "base$rep" "target$rep" >"check$rep.txt" 2>&1 || rc=$?
    r=$(rows "check$rep.txt")
    [ "$rc" = 1 ] && [ "$(echo "$r" | wc -l)" = 1 ] && [[ $r == *"Object#m (app.rb)" ]] ||
        fail "repetition $rep, m 30% slower: exit status $rc, expected Object#m alone: $(cat "check$rep.txt")"
    grep -q 'where the time went: Object#m (app.rb) → Object#burn (app.rb)' "check$rep.txt" ||
        fail "repetition $rep: the path is not said: $(cat "check$rep.txt")"
    found=$((found + 1))
    [ -n "$power" ] || power=$(grep -o 'a path that grew [0-9]*% or more is found' "check$rep.txt" || true)
done
note "m 30% slower at --check 10, $RUNS runs against $RUNS: Object#m named $found times in 20 ($(rows check1.txt | tr -s ' '); $power)"

# the same verdict as JSON
rc=0
"$ANALYZE" diff --check 10 --json base1 target1 >check.json || rc=$?
[ "$rc" = 1 ] || fail "--json: exit status $rc"
"$RUBY" -rjson -e 'v = JSON.parse(File.read(ARGV[0]))
    r = v["regressed"]
    abort "regressed: #{r.inspect}" unless r.size == 1 && r[0]["method"] == "Object#m (app.rb)" && r[0]["p"] < 0.05 &&
        r[0]["path"][0, 2] == ["Object#m (app.rb)", "Object#burn (app.rb)"] && r[0]["growth_pct"] > 10
    abort "runs: #{v.inspect}" unless v["base_runs"] == ARGV[1].to_i && v["target_runs"] == ARGV[1].to_i && v["can_be_significant"] &&
        v["detectable_growth_pct"].is_a?(Numeric) && v["noise_pct"].is_a?(Numeric)' check.json "$RUNS" ||
    fail "diff --check --json: $(cat check.json)"

# The same program on both sides: 20 repetitions, RUNS runs against RUNS
# others of the twenty, interleaved as a CI job records base and target
# (docs/comparing.md): RUNS of the ten pairs of runs made one after the other, one
# run of each pair a side, which side drawn at random.
for rep in $(seq 20); do
    mapfile -t pairs < <(seq 10 | shuf --random-source=<(yes "$rep") | head -"$RUNS")
    mapfile -t flips < <(seq "$RUNS" | shuf --random-source=<(yes "flip$rep"))
    a=() b=()
    for ((k = 0; k < RUNS; k++)); do
        first=$((2 * pairs[k] - 1)) second=$((2 * pairs[k]))
        if [ "${flips[k]}" -le $((RUNS / 2)) ]; then a+=("$first") b+=("$second"); else a+=("$second") b+=("$first"); fi
    done
    side "a$rep" "$WORK/runs" "${a[@]/#/same-}"
    side "b$rep" "$WORK/runs" "${b[@]/#/same-}"
    rc=0
    "$RPERF" diff --check 10 "a$rep" "b$rep" >"same$rep.txt" 2>&1 || rc=$?
    [ "$rc" = 0 ] || fail "repetition $rep, the same program on both sides: exit status $rc: $(cat "same$rep.txt")"
done
note "the same program, $RUNS runs against $RUNS at --check 10: no method named, 20 repetitions out of 20"

# One run per side proves nothing, and says so.
rc=0
"$RPERF" diff --check 10 runs/same-1 runs/slower/1.json.gz >one.txt || rc=$?
[ "$rc" = 0 ] && grep -q "no method can be called significant" one.txt || fail "one run each: status $rc, $(cat one.txt)"

# Usage errors: status 2 from the analyzer.
rc=0
"$ANALYZE" diff --check ten base1 target1 2>bad.err || rc=$?
[ "$rc" = 2 ] && grep -q -- "--check expects" bad.err || fail "--check ten: status $rc, $(cat bad.err)"
note "diff --check ok"
