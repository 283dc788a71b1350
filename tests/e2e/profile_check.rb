# tests/e2e/profile_check.rb — reads a profile file the way the rperf gem
# does (gzip + JSON) and checks or prints what the end-to-end tests need.
#
#   ruby profile_check.rb schema FILE             validate every key and type
#   ruby profile_check.rb threads FILE LABEL      "thread_seq weight_ns" per thread
#                                                 for samples whose stack has LABEL
#   ruby profile_check.rb weight FILE LABEL       total ns of samples whose stack has LABEL
#   ruby profile_check.rb total FILE              total ns of all samples
#   ruby profile_check.rb labeled FILE LABEL K=V  total ns of samples whose stack has
#                                                 LABEL ("-" for any) and whose label
#                                                 set has K=V ("-" for none)
#   ruby profile_check.rb field FILE KEY          a top-level value
#   ruby profile_check.rb leaf_line FILE LABEL LINE  total ns of samples whose leaf frame
#                                                 is LABEL at LINE (RPERF_LINES=1)
#   ruby profile_check.rb lines FILE              how many frames carry a line
require "json"
require "zlib"

def load(path)
  JSON.parse(Zlib::GzipReader.open(path, &:read))
end

def fail!(msg)
  warn "schema: #{msg}"
  exit 1
end

def check_int(doc, key, min: 0)
  v = doc.fetch(key) { fail!("missing key #{key}") }
  fail!("#{key} is #{v.inspect}, expected an integer >= #{min}") unless v.is_a?(Integer) && v >= min
end

def check_schema(doc)
  %w[pid ppid trigger_count sampling_count sampling_time_ns detected_thread_count
     unique_frames unique_stacks start_time_ns duration_ns user_ns sys_ns
     dropped_samples].each { |k| check_int(doc, k) }
  check_int(doc, "frequency", min: 1)
  fail!("rperf_version missing") unless doc["rperf_version"].is_a?(String)
  fail!("mode is #{doc["mode"].inspect}") unless %w[cpu wall].include?(doc["mode"])
  fail!("command must be an array of strings") unless doc["command"].is_a?(Array) && doc["command"].all?(String)
  fail!("ruby_version must be a string") unless doc["ruby_version"] =~ /\A[34]\.\d+\.\d+/
  gc = doc["gc"] or fail!("gc missing")
  %w[count minor_gc_count major_gc_count time_ns total_allocated_objects total_freed_objects].each { |k| check_int(gc, k) }
  os = doc["os"] or fail!("os missing")
  %w[maxrss_kb page_faults_minor page_faults_major ctx_voluntary ctx_involuntary
     io_read_bytes io_write_bytes].each { |k| check_int(os, k) }
  fail!("maxrss_kb is 0") unless os["maxrss_kb"] > 0
  fail!("start_time_ns is not a recent epoch time") unless doc["start_time_ns"] > 1_600_000_000 * 10**9

  samples = doc["aggregated_samples"] || doc["raw_samples"] or fail!("no samples key")
  label_sets = doc["label_sets"]
  fail!("label_sets must be an array of objects starting with {}") unless label_sets.is_a?(Array) && label_sets.all?(Hash) && label_sets.first == {}
  frames_seen = {}
  raw = doc.key?("raw_samples") && !doc.key?("aggregated_samples")
  run_end = doc["start_time_ns"] + doc["duration_ns"] + 1_000_000_000 # a write's own second
  samples.each_with_index do |s, i|
    frames, weight, thread_seq, lsid, taken = s
    # raw samples say when they were taken: Unix ns within the run
    fail!("sample #{i} has #{s.size} elements") unless s.size == (raw ? 5 : 4)
    fail!("raw sample #{i} taken at #{taken.inspect}, not within the run") if raw && !(taken.is_a?(Integer) && taken.between?(doc["start_time_ns"], run_end))
    fail!("sample #{i} weight #{weight.inspect}") unless weight.is_a?(Integer) && weight > 0
    fail!("sample #{i} thread_seq #{thread_seq.inspect}") unless thread_seq.is_a?(Integer) && thread_seq.between?(1, doc["detected_thread_count"])
    fail!("sample #{i} label set #{lsid.inspect}") unless lsid.is_a?(Integer) && lsid.between?(0, label_sets.size - 1)
    fail!("sample #{i} has no frames") if frames.empty?
    fail!("sample #{i} is deeper than 512 frames") if frames.size > 512
    frames.each do |f|
      # [path, label], or with RPERF_LINES=1 [path, label, line, first_line]
      # for Ruby frames (first_line may be missing)
      fail!("sample #{i} frame #{f.inspect}") unless f.is_a?(Array) && f.size.between?(2, 4) &&
        f[0, 2].all?(String) && f.drop(2).all? { |n| n.is_a?(Integer) && n > 0 }
      frames_seen[f] = true
    end
  end
  fail!("unique_frames #{doc["unique_frames"]} < frames seen #{frames_seen.size}") if doc["unique_frames"] < frames_seen.size
  fail!("sampling_count #{doc["sampling_count"]} > trigger_count #{doc["trigger_count"]}") if doc["sampling_count"] > doc["trigger_count"]
  puts "schema ok: #{samples.size} samples, #{frames_seen.size} frames"
end

def samples_with(doc, label)
  (doc["aggregated_samples"] || doc["raw_samples"]).select { |frames, *| frames.any? { |_, l| l == label } }
end

cmd, path, label = ARGV
doc = load(path)
case cmd
when "schema" then check_schema(doc)
when "threads"
  by_thread = Hash.new(0)
  samples_with(doc, label).each { |_, w, t, _| by_thread[t] += w }
  by_thread.sort.each { |t, w| puts "#{t} #{w}" }
when "weight" then puts samples_with(doc, label).sum { |_, w, *| w }
when "running" # the time not off the GVL (no %GVL label)
  puts (doc["aggregated_samples"] || doc["raw_samples"]).reject { |_, _, _, ls| doc["label_sets"][ls].key?("%GVL") }.sum { |_, w, *| w }
when "self" then puts (doc["aggregated_samples"] || doc["raw_samples"]).select { |(leaf, *), *| leaf[1] == label }.sum { |_, w, *| w }
when "total" then puts (doc["aggregated_samples"] || doc["raw_samples"]).sum { |_, w, *| w }
when "labeled"
  key, value = ARGV[3].split("=", 2)
  samples = label == "-" ? (doc["aggregated_samples"] || doc["raw_samples"]) : samples_with(doc, label)
  puts samples.select { |_, _, _, ls|
    set = doc["label_sets"][ls]
    key == "-" ? set.empty? : set[key] == value
  }.sum { |_, w, *| w }
when "field" then puts doc.fetch(label).to_json
when "leaf_line"
  line = Integer(ARGV[3])
  puts (doc["aggregated_samples"] || doc["raw_samples"]).select { |(leaf, *), *|
    leaf[1] == label && leaf[2] == line
  }.sum { |_, w, *| w }
when "lines"
  puts (doc["aggregated_samples"] || doc["raw_samples"]).sum { |frames, *| frames.count { |f| f.size > 2 } }
else abort "unknown check #{cmd}"
end
