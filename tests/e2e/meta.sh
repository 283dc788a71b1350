# The gem 0.11's profile meta and summary: rperf record collects git's
# view of the working directory before the program runs and takes
# --label KEY=VALUE; the profile begins with "meta" (commit, branch,
# subject, dirty tree, host, versions, labels) and "summary" (time, GC,
# top methods), which Rperf.read_meta reads from the file's head and the
# analyzer keeps when it merges; --snapshot-dir names the file after the
# commit; GITHUB_SHA comes first; a bad RPERF_META_LABELS is said and left
# out, and the program still profiled.
. "$(dirname "$0")/lib.sh"
RPERF="$RPERF_TEST_RPERF"
command -v git >/dev/null || { echo "SKIP: no git on this machine (the meta's commit comes from git)" >&2; exit 77; }
export GIT_CEILING_DIRECTORIES="$PWD" # the repositories below are the only ones git finds
unset GITHUB_SHA GITHUB_HEAD_REF GITHUB_REF_NAME

mkdir repo
# hot's time is its own (self): its loop reads the CPU clock once per
# 20,000 turns (burn_cpu's reads it every turn, and on a loaded machine
# its samples can all fall in Process.clock_gettime).
cat >repo/hot.rb <<'RUBY'
def hot
  stop = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) + 0.3
  while Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) < stop
    i = 0
    i += 1 while i < 20_000
  end
end
hot
RUBY
git -C repo init -q -b trunk
git -C repo add hot.rb
git -C repo -c user.name=t -c user.email=t@example.com commit -q -m "Make it hot"
sha=$(git -C repo rev-parse HEAD)

(cd repo && "$RPERF" record -o ../clean.json.gz --label ci=local --label pr=12 --label ci=again "$RUBY" hot.rb) \
    2>err.txt || fail "record: $(cat err.txt)"
zcat clean.json.gz >clean.json
[ "$(head -c 9 clean.json)" = '{"meta":{' ] || fail "the profile does not begin with meta: $(head -c 80 clean.json)"
"$RUBY" -rjson -e '
  doc = JSON.parse(File.read("clean.json"))
  abort "the first two members are #{doc.keys.first(2)}" unless doc.keys.first(2) == %w[meta summary]
  m, s = doc["meta"], doc["summary"]
  want = {"sha" => ARGV[0], "branch" => "trunk", "subject" => "Make it hot", "dirty" => false}
  got = m["git"].slice(*want.keys)
  abort "git #{m["git"]}, expected #{want}" unless got == want && m["git"]["committed_at"] =~ /\A\d{4}-\d\d-\d\dT/
  abort "labels #{m["labels"]}" unless m["labels"] == {"ci" => "again", "pr" => "12"} && m["labels"].keys == %w[ci pr]
  abort "hostname #{m["hostname"]}" unless m["hostname"] == ARGV[1]
  abort "created_at #{m["created_at"]}" unless m["created_at"] =~ /\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\z/
  abort "meta #{m}" unless m["format_version"] == 1 && m["mode"] == "cpu" && m["ruby_version"] == RUBY_VERSION
  top = s["top_methods"].first
  abort "summary top #{top}" unless top["name"] == "Object#hot"
  hot = s["top_methods"].find { _1["name"] == "Object#hot" } # methods with self time
  abort "Object#hot not in the summary: #{s["top_methods"]}" unless hot && hot["total_pct"] > 50
  abort "summary #{s.keys}" unless (%w[total_ms cpu_ms samples top_methods] - s.keys).empty?
  abort "samples #{s["samples"]}" unless s["samples"] == doc["sampling_count"]
' "$sha" "$(hostname)" || fail "meta and summary of a clean tree"

# a dirty tree; the file read back by Rperf.read_meta, merged by the analyzer
echo "# changed" >>repo/hot.rb
(cd repo && "$RPERF" record -o ../dirty.json.gz "$RUBY" hot.rb) 2>err.txt || fail "record dirty: $(cat err.txt)"
RPERF_ENABLED=0 LD_PRELOAD="$PRELOAD" "$RUBY" -e '
  require "rperf"
  m = Rperf.read_meta("dirty.json.gz")
  abort "read_meta: #{m.inspect}" unless m && m[:meta][:git][:dirty] == true && m[:meta][:git][:sha] == ARGV[0]
  abort "no labels were given: #{m[:meta]}" if m[:meta].key?(:labels)
  abort "summary: #{m[:summary]}" unless m[:summary][:top_methods].any? { _1[:name] == "Object#hot" }
  File.write("old.json", %({"rperf_version":"0.9.0","mode":"cpu","aggregated_samples":[]}))
  abort "a file without meta: #{Rperf.read_meta("old.json").inspect}" unless Rperf.read_meta("old.json").nil?
  abort "no such file" unless Rperf.read_meta("nothing.json.gz").nil?
' "$sha" 2>err.txt || fail "Rperf.read_meta: $(cat err.txt)"
"$ANALYZE" convert --json -o merged.json.gz clean.json.gz || fail "convert"
zcat merged.json.gz >merged.json
"$RUBY" -rjson -e 'm = JSON.parse($stdin.read)["meta"]; exit(m["labels"] == {"ci" => "again", "pr" => "12"} && m["git"]["sha"] == ARGV[0] ? 0 : 1)' "$sha" <merged.json \
    || fail "the analyzer did not keep the meta: $(head -c 400 merged.json)"

# --snapshot-dir: named after the commit; outside a repository, nogit and the pid
(cd repo && "$RPERF" record --snapshot-dir ../snaps "$RUBY" hot.rb) 2>err.txt || fail "--snapshot-dir: $(cat err.txt)"
ls snaps | grep -q "^rperf-${sha:0:7}-[0-9]\{8\}T[0-9]\{6\}Z\.json\.gz$" || fail "snapshot name: $(ls snaps)"
mkdir plain && cp repo/hot.rb plain/
(cd plain && "$RPERF" record --snapshot-dir ../nogit "$RUBY" hot.rb) 2>err.txt || fail "--snapshot-dir outside git: $(cat err.txt)"
ls nogit | grep -q '^rperf-nogit-[0-9]\{8\}T[0-9]\{6\}Z-[0-9]*\.json\.gz$' || fail "nogit name: $(ls nogit)"
zcat nogit/*.json.gz >nogit.json
! grep -q '"git":' nogit.json || fail "a git object outside a repository: $(head -c 400 nogit.json)"

# GitHub Actions' commit comes first
(cd plain && GITHUB_SHA=0123456789abcdef0123456789abcdef01234567 GITHUB_REF_NAME=feature \
    "$RPERF" record -o ../gh.json.gz "$RUBY" hot.rb) 2>err.txt || fail "GITHUB_SHA: $(cat err.txt)"
zcat gh.json.gz >gh.json
grep -q '"git":{"sha":"0123456789abcdef0123456789abcdef01234567","branch":"feature","dirty":false}' gh.json \
    || fail "GITHUB_SHA: $(head -c 400 gh.json)"

# a label object that is not one: said, left out, the program profiled
RPERF_META_LABELS='{"a": [1]}' profiled bad "$RUBY" plain/hot.rb 2>err.txt || fail "bad labels: $(cat err.txt)"
grep -q "RPERF_META_LABELS is not a JSON object of strings, numbers and booleans" err.txt || fail "not said: $(cat err.txt)"
f=$(only_profile bad)
zcat "$f" >bad.json
! grep -q '"labels":' bad.json || fail "bad labels written: $(head -c 400 bad.json)"
"$ANALYZE" report "$f" >bad_report.txt || fail "report of the profile with bad labels"
grep -q "Object#hot" bad_report.txt || fail "the program was not profiled with a bad RPERF_META_LABELS: $(cat bad_report.txt)"
# Rperf::Meta, the gem 0.11's module: the same commit, names, and summary
# as the files carry; the gem's names of the GC and memory figures
(cd repo && RPERF_ENABLED=0 LD_PRELOAD="$PRELOAD" "$RUBY" -e '
  require "rperf"
  sha = ARGV[0]
  git = Rperf::Meta.collect_git
  abort "collect_git #{git}" unless git[:sha] == sha && git[:branch] == "trunk" && git[:dirty] == true
  abort "collect_git outside a repository" unless Rperf::Meta.collect_git("/") .nil?
  t = Time.utc(2026, 1, 2, 3, 4, 5)
  abort "snapshot_filename" unless Rperf::Meta.snapshot_filename({sha: sha}, time: t) == "rperf-#{sha[0, 7]}-20260102T030405Z.json.gz"
  abort "nogit name" unless Rperf::Meta.snapshot_filename(nil, time: t, pid: 42) == "rperf-nogit-20260102T030405Z-42.json.gz"
  data = Rperf.load("../clean.json.gz")
  summary = Rperf::Meta.build_summary(data)
  from_file = Rperf.read_meta("../clean.json.gz")[:summary]
  abort "build_summary #{summary} against the file #{from_file}" unless summary == from_file
  abort "top_methods" unless Rperf::Meta.top_methods(data, limit: 2) == from_file[:top_methods].first(2)
  ENV["RPERF_META_GIT"] = %({"sha":"#{sha}","dirty":false})
  ENV["RPERF_META_LABELS"] = %({"ci":"x"})
  meta = Rperf::Meta.build_meta(data)
  abort "build_meta #{meta}" unless meta[:git] == {sha: sha, dirty: false} && meta[:labels] == {"ci" => "x"} &&
                                    meta[:format_version] == 1 && meta[:mode] == "cpu"
  abort "Meta.read" unless Rperf::Meta.read("../clean.json.gz") == Rperf.read_meta("../clean.json.gz")
  # Rperf.load has the meta and summary of the file, as the Hash of the gem does,
  # and Rperf.save writes them again
  abort "load :meta #{data[:meta].inspect}" unless data[:meta] == Rperf.read_meta("../clean.json.gz")[:meta] &&
                                                  data[:summary] == from_file && data[:meta][:labels] == {ci: "again", pr: "12"}
  Rperf.save("../copy.json.gz", data)
  copy = Rperf.read_meta("../copy.json.gz")[:meta]
  kept = %i[hostname created_at git labels]
  abort "save kept #{copy.slice(*kept)}, loaded #{data[:meta].slice(*kept)}" unless copy.slice(*kept) == data[:meta].slice(*kept)
  # a summary handed with the data is written as given, as the gem writes it
  given = {total_ms: 1.0, samples: 1, allocated_objects: 1000, top_methods: []}
  Rperf.save("../given.json.gz", data.merge(summary: given))
  abort "the given summary: #{Rperf.read_meta("../given.json.gz")[:summary]}" unless Rperf.read_meta("../given.json.gz")[:summary] == given
  gc = data[:gc_stats]
  abort "gc_stats #{gc.inspect}" unless gc && gc[:allocated_objects].to_i > 0 && gc.key?(:minor_count) && gc.key?(:time_ms)
  abort "maxrss_mb #{data[:maxrss_mb].inspect}" unless data[:maxrss_mb].to_i > 0
' "$sha") 2>err.txt || fail "Rperf::Meta: $(cat err.txt)"
zcat clean.json.gz | "$RUBY" -rjson -e 'd = JSON.parse($stdin.read); exit(d["gc_stats"]["allocated_objects"] == d["gc"]["total_allocated_objects"] && d["maxrss_mb"] > 0 ? 0 : 1)' \
    || fail "the file lacks the gem's gc_stats and maxrss_mb"
note "meta: commit ${sha:0:7} on trunk, labels, dirty tree, read_meta, snapshot names, GITHUB_SHA"
