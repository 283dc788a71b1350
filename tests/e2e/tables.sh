# The gem's flat tables (--format table / table-json): a program whose two
# methods burn a known share of CPU, recorded twice with the shares
# swapped; `rperf-analyze report|diff --format table|table-json`, the
# rperf command's `report|diff --format` and Rperf::Table give one table,
# with the shares the program burnt, the rest in "(other)", a "# summary"
# line, and the diff's change in points, largest first.
. "$(dirname "$0")/lib.sh"
RPERF="$RPERF_TEST_RPERF"

cat >split.rb <<'RUBY'
heavy_ms, light_ms = ARGV.map { Float(_1) / 1000 }
# Each spends its CPU time in its own frame (a while loop calls no
# method), the clock read once per 20,000 turns: the time is its self time.
SPIN = "stop = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) + s
  while Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) < stop
    i = 0
    i += 1 while i < 20_000
  end"
eval("def heavy(s)\n#{SPIN}\nend")
eval("def light(s)\n#{SPIN}\nend")
10.times do
  heavy(heavy_ms / 10)
  light(light_ms / 10)
end
RUBY
profiled base "$RUBY" split.rb 600 200 2>err.txt || fail "split.rb: $(cat err.txt)"
profiled head "$RUBY" split.rb 200 600 2>err.txt || fail "split.rb: $(cat err.txt)"

"$ANALYZE" report --format table base >base.tsv || fail "report --format table"
[ "$(head -1 base.tsv)" = "$(printf 'method\tself_pct\ttotal_pct\tself_ms')" ] || fail "header: $(head -1 base.tsv)"
field() { awk -F'\t' -v m="$2" -v c="$3" '$1 == m { print $c }' "$1"; }
heavy=$(field base.tsv Object#heavy 2) light=$(field base.tsv Object#light 2)
# The methods' total shares: what they burnt includes their clock reads,
# Process.clock_gettime frames of their own, where a loaded machine's
# scheduler likes to end a time slice (samples taken as the thread resumes
# land there: 3-10% of the run under two busy loops, 1% on a quiet machine).
heavy_total=$(field base.tsv Object#heavy 3) light_total=$(field base.tsv Object#light 3)
# (the profile's total is its self_ms over its self_pct; the summary's
# total_ms is the run's wall time)
heavy_ms=$(awk -v t="$heavy_total" -v s="$heavy" -v ms="$(field base.tsv Object#heavy 4)" \
    'BEGIN { printf "%.1f", t * ms / s }')
# 600 and 200 ms of some 850 ms in all (with the boot): three to one
awk -v h="$heavy_total" -v l="$light_total" 'BEGIN { exit !(h > 50 && h < 80 && l > 15 && l < 28 && h / l > 2.6 && h / l < 3.4) }' \
    || fail "shares: heavy $heavy_total%, light $light_total%, burnt 600 and 200 ms: $(cat base.tsv)"
awk -v h="$heavy" -v l="$light" 'BEGIN { exit !(h > 40 && h <= 80 && l > 10 && l <= 28) }' \
    || fail "self shares: heavy $heavy%, light $light%: $(cat base.tsv)"
awk -v ms="$heavy_ms" 'BEGIN { exit !(ms > 540 && ms < 660) }' || fail "heavy's total $heavy_ms ms, burnt 600: $(cat base.tsv)"
tail -1 base.tsv | grep -q "$(printf '^# summary\ttotal_ms=[0-9.]*\tcpu_ms=[0-9.]*\tallocated_objects=[0-9]*\tgc_count_minor=[0-9]*\tgc_count_major=[0-9]*$')" \
    || fail "summary line: $(tail -1 base.tsv)"
"$ANALYZE" report --format table --top 1 base >top1.tsv || fail "report --format table --top 1"
[ "$(wc -l <top1.tsv)" -eq 4 ] && [ "$(sed -n 2p top1.tsv | cut -f1)" = Object#heavy ] \
    && [ "$(sed -n 3p top1.tsv | cut -f1,3)" = "$(printf '(other)\t')" ] \
    || fail "one row, (other) without total_pct, summary: $(cat top1.tsv)"
rest=$(sed -n 3p top1.tsv | cut -f2)
awk -v h="$heavy" -v r="$rest" 'BEGIN { exit !(h + r > 99.9 && h + r < 100.1) }' || fail "heavy $heavy% + (other) $rest% is not 100"

# table-json: the same rows, the summary last
"$ANALYZE" report --format table-json base >base.json || fail "report --format table-json"
"$RUBY" -rjson -e '
  rows = JSON.parse(File.read("base.json"))
  tsv = File.readlines("base.tsv", chomp: true)[1...-1].map { _1.split("\t", -1) }
  summary = rows.pop.fetch("summary")
  abort "rows differ: #{rows.size} against #{tsv.size}" unless rows.size == tsv.size
  rows.zip(tsv).each do |r, t|
    got = [r["method"], r["self_pct"].to_s, r["total_pct"].to_s, r["self_ms"].to_s]
    abort "row #{got} against #{t}" unless got == t.map { _1.empty? ? "" : _1 }
  end
  abort "summary #{summary}" unless summary.keys == %w[total_ms cpu_ms allocated_objects gc_count_minor gc_count_major]
' || fail "table-json against table"

# the diff: light gained what heavy lost, the largest changes first
"$ANALYZE" diff --format table base head >diff.tsv || fail "diff --format table"
[ "$(head -1 diff.tsv)" = "$(printf 'method\tself_pct_base\tself_pct_head\tdelta_pt')" ] || fail "diff header: $(head -1 diff.tsv)"
first=$(sed -n 2p diff.tsv | cut -f1) second=$(sed -n 3p diff.tsv | cut -f1)
[ "$(printf '%s\n' "$first" "$second" | sort | tr '\n' ' ')" = "Object#heavy Object#light " ] \
    || fail "the two largest changes are not heavy and light: $(head -4 diff.tsv)"
dh=$(field diff.tsv Object#heavy 4) dl=$(field diff.tsv Object#light 4)
awk -v h="$dh" -v l="$dl" 'BEGIN { exit !(h < -30 && l > 30) }' || fail "delta_pt heavy $dh, light $dl"
tail -1 diff.tsv | grep -q "$(printf '^# summary\ttotal_ms_base=[0-9.]*\ttotal_ms_head=[0-9.]*\ttotal_ms_delta=-\\?[0-9.]*\tallocated_objects_base=')" \
    || fail "diff summary: $(tail -1 diff.tsv)"
"$ANALYZE" diff --format table-json base head | "$RUBY" -rjson -e 'r = JSON.parse($stdin.read); exit(r.last.key?("summary") && r.first.key?("delta_pt") ? 0 : 1)' \
    || fail "diff --format table-json"

# the rperf command, and Rperf::Table on the same files, say the same
"$ANALYZE" convert --json -o base.json.gz base || fail "convert base"
"$ANALYZE" convert --json -o head.json.gz head || fail "convert head"
"$RPERF" report --format table base.json.gz >cmd.tsv || fail "rperf report --format table"
"$ANALYZE" report --format table base.json.gz >file.tsv
cmp -s cmd.tsv file.tsv || fail "rperf report --format table differs from rperf-analyze's: $(diff cmd.tsv file.tsv)"
"$RPERF" diff --format table-json base.json.gz head.json.gz >cmd_diff.json || fail "rperf diff --format table-json"
RPERF_ENABLED=0 LD_PRELOAD="$PRELOAD" "$RUBY" -e '
  require "rperf"
  base, head = Rperf.load("base.json.gz"), Rperf.load("head.json.gz")
  File.write("api.tsv", Rperf::Table.report_tsv(base))
  File.write("api_diff.json", Rperf::Table.diff_json(base, head) + "\n")
  rows = Rperf::Table.report_rows(base, limit: 2)
  abort "report_rows: #{rows}" unless rows.size == 3 && rows.last[:method] == "(other)" && rows.last[:total_pct].nil?
  abort "report_summary" unless Rperf::Table.report_summary(base).key?(:total_ms)
  abort "diff_rows" unless Rperf::Table.diff_rows(base, head, limit: 1).first[:delta_pt].abs > 30
  # a summary handed with the data gives the summary line, as the gem takes it
  given = base.merge(summary: {total_ms: 1234.5, allocated_objects: 999, gc_count_minor: 3, gc_count_major: 1})
  line = Rperf::Table.report_tsv(given).lines.last
  abort "the given summary: #{line}" unless line == "# summary\ttotal_ms=1234.5\tallocated_objects=999\tgc_count_minor=3\tgc_count_major=1\n"
  deltas = Rperf::Table.diff_summary(given, given.merge(summary: {total_ms: 1300.0, allocated_objects: 1000}))
  abort "the given summaries: #{deltas}" unless deltas[:total_ms_delta] == 65.5 && deltas[:allocated_objects_delta] == 1
' 2>err.txt || fail "Rperf::Table: $(cat err.txt)"
cmp -s api.tsv file.tsv || fail "Rperf::Table.report_tsv differs: $(diff api.tsv file.tsv)"
cmp -s api_diff.json cmd_diff.json || fail "Rperf::Table.diff_json differs from rperf diff's"

# a format that is not one is refused, naming it
"$ANALYZE" report --format tsv base >/dev/null 2>err.txt && fail "report --format tsv was taken"
grep -q "report: --format is text, table or table-json, got 'tsv'" err.txt || fail "report: $(cat err.txt)"
"$RPERF" diff --format tsv base.json.gz head.json.gz >/dev/null 2>err.txt && fail "rperf diff --format tsv was taken"
grep -q "invalid argument: --format tsv" err.txt || fail "rperf diff: $(cat err.txt)"
note "heavy self $heavy%, total $heavy_total% ($heavy_ms ms of 600 burnt), light self $light%; diff: heavy $dh, light $dl points"
