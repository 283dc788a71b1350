# tests/e2e/api/files.rb — the data of a session in every format and file,
# through the Ruby API (api_files.sh reads the files back with
# rperf-analyze and go tool pprof): Rperf.save in each format, Rperf.load
# of them and of broken files raising what the gem raises, the encoders,
# print_stat and verbose output on $stderr (which a program may replace).
require "rperf"
require "cpu_burn"
require "zlib"
require "json"
require_relative "check"

def hot = burn_cpu(0.2)
data = Rperf.start(mode: :wall, frequency: 500) { Rperf.label(tenant: "</script><b>x") { hot } }

%w[p.json.gz p.json p.pb.gz p.collapsed p.txt].each { |f| Rperf.save(f, data) }
# The gem's names decide only these; the page and speedscope are asked for.
Rperf.save("p.html", data, format: :html)
Rperf.save("p.speedscope.json", data, format: :speedscope)
Rperf.save("other.name", data)
check("another name is pprof, as the gem's", File.binread("other.name", 2), "\x1f\x8b".b)
check("the page is a page", File.read("p.html").start_with?("<!DOCTYPE html>"), true)
Rperf.save("forced.dat", data, format: :text)
check("format: forces text", File.read("forced.dat").start_with?("Total: "), true)
check(".json.gz is gzip", File.binread("p.json.gz", 2), "\x1f\x8b".b)
check(".json is plain", File.binread("p.json", 1), "{")
check(".pb.gz is gzip", File.binread("p.pb.gz", 2), "\x1f\x8b".b)
check("the page carries the label", File.read("p.html").include?("<\\/script>"), true)
check("the page escapes the label", File.read("p.html").include?("</script><b>x"), false)

# Loading them back: the same samples; the version as saved.
loaded = Rperf.load("p.json.gz")
check("load: mode", loaded[:mode].to_s, "wall")
check("load: samples", loaded[:aggregated_samples].size, data[:aggregated_samples].size)
check("load: total", loaded[:aggregated_samples].sum { |_, w| w }, data[:aggregated_samples].sum { |_, w| w })
check("load: labels", loaded[:label_sets].include?({tenant: "</script><b>x"}), true)
check("load of plain JSON", Rperf.load("p.json")[:aggregated_samples].size, data[:aggregated_samples].size)
check("load of pprof", Rperf.load("p.pb.gz")[:aggregated_samples].sum { |_, w| w },
      data[:aggregated_samples].sum { |_, w| w })

File.binwrite("old.json.gz", Zlib.gzip(JSON.generate(mode: "cpu", frequency: 100, aggregated_samples: [],
                                                        rperf_version: "0.0.1")))
check("another version is said", stderr_of { Rperf.load("old.json.gz") },
      "rperf: warning: file was saved by rperf 0.0.1 (current: #{Rperf::VERSION})\n")
File.binwrite("none.json.gz", Zlib.gzip(JSON.generate(mode: "cpu", aggregated_samples: [])))
check("no version is said", stderr_of { Rperf.load("none.json.gz") }.include?("no version info"), true)

# Broken files raise as the gem's Rperf.load raises.
{"missing.json.gz" => Errno::ENOENT, "badgzip.json.gz" => Zlib::GzipFile::Error,
 "notjson.json.gz" => JSON::ParserError, "cut.json.gz" => Zlib::GzipFile::Error}.each do |file, error|
  File.binwrite("badgzip.json.gz", "\x1f\x8b not gzip at all")
  File.binwrite("notjson.json.gz", Zlib.gzip("not json {"))
  File.binwrite("cut.json.gz", File.binread("p.json.gz")[0, 200])
  Rperf.load(file)
  raise "load(#{file}) did not raise"
rescue error
  nil
end
begin
  Rperf.save("/nonexistent/dir/x.json.gz", data)
  raise "save into a missing directory did not raise"
rescue Errno::ENOENT
  nil
end

# Encoders on hand-made data, as the gem's tests make it.
made = {mode: :cpu, frequency: 100, aggregated_samples: [
  [[["/a.rb", "A#foo"], ["/b.rb", "B#bar"]], 1_000_000], [[["/a.rb", "A#foo"], ["/b.rb", "B#bar"]], 2_000_000],
  [[["/c.rb", "C#baz"]], 500_000],
]}
text = Rperf::Text.encode(made)
check("text: total", text.lines.first, "Total: 3.5ms (cpu)\n")
check("text: samples are the entries", text.lines[1], "Samples: 3, Frequency: 100Hz\n")
check("text without its header", Rperf::Text.encode(made, header: false).start_with?(" Flat:"), true)
check("text, one row", Rperf::Text.encode(made, top_n: 1, header: false).lines.count { |l| l.include?(" ms ") }, 2)
check("collapsed", Rperf::Collapsed.encode(made).lines.sort, ["B#bar;A#foo 3000000\n", "C#baz 500000\n"])
check("collapsed of nothing", Rperf::Collapsed.encode({aggregated_samples: []}), "")
check("text of nothing", Rperf::Text.encode({aggregated_samples: []}), "No samples recorded.\n")
pb = Rperf::PProf.encode(made)
check("pprof starts with its sample type", pb.getbyte(0), 0x0a)
check("pprof is binary", pb.encoding, Encoding::BINARY)
begin
  Rperf::Text.encode({aggregated_samples: [[[["/a.rb", "m"]], -5]]})
  raise "a negative weight was taken"
rescue ArgumentError => e
  check("a negative weight is named", e.message.include?("weight must be a non-negative Integer"), true)
end

# print_stat and verbose write to $stderr, whatever it is now.
ENV["RPERF_STAT_COMMAND"] = "ruby files.rb"
stat = stderr_of { Rperf.print_stat(data) }
["Performance stats for 'ruby files.rb'", "[Rperf] CPU execution", "[Ruby ] GC time", "[OS   ] peak memory",
 "profiler overhead"].each { |s| check("print_stat says #{s}", stat.include?(s), true) }
verbose = stderr_of { Rperf.start(verbose: true) { hot } }
["[Rperf] mode=cpu frequency=1000Hz", "[Rperf] sampling:", "[Rperf] top", "by flat:", "by cum:"].each do |s|
  check("verbose says #{s}", verbose.include?(s), true)
end
# The gem's public printing and gzip helpers (its accuracy harness writes
# its .pb.gz with Rperf.gzip).
stats = stderr_of { Rperf.print_stats(data) }
check("print_stats is what verbose prints", stats.start_with?("[Rperf] mode=wall frequency=500Hz") &&
      stats.include?("by flat:") && stats.include?("Object#hot"), true)
top = stderr_of { Rperf.print_top(data) }
check("print_top is print_stats' tables", top.start_with?("[Rperf] top ") && stats.end_with?(top), true)
table = stderr_of { Rperf.print_top_table("cum", { %w[A#a a.rb] => 3_000_000, ["B#b", ""] => 1_000_000 }, 4_000_000) }
check("print_top_table", table, "[Rperf] top 2 by cum:\n[Rperf]        3.0ms  75.0%  A#a (a.rb)\n" \
                                "[Rperf]        1.0ms  25.0%  B#b\n")
check("TOP_N", Rperf::TOP_N, 10)
encoded = Rperf::PProf.encode(data)
gz = Rperf.gzip(encoded)
require "zlib"
check("gzip gives binary gzip of its input", [gz.encoding, Zlib.gunzip(gz) == encoded], [Encoding::BINARY, true])
stat = stderr_of { Rperf.start(stat: true) { hot } }
check("stat: true prints the summary", stat.include?("Performance stats"), true)
puts "files.rb ok"
