# tests/bench/gen_session.rb — writes a synthetic session directory for the
# analyzer benchmark: PROCESSES profile files whose uncompressed JSON adds
# up to about TOTAL_MB, with realistic stacks (deep Rails-like call chains
# over a few thousand distinct frames, labels, several threads).
#
#   ruby gen_session.rb DIR PROCESSES TOTAL_MB [lines]
#
# With "lines", Ruby frames carry a line (one of four per method) and the
# method's first line, as RPERF_LINES=1 records them.
require "json"
require "zlib"
require "fileutils"

dir, processes, total_mb = ARGV[0], Integer(ARGV[1]), Integer(ARGV[2])
with_lines = ARGV[3] == "lines"
FileUtils.mkdir_p(dir)
rng = Random.new(42)
FRAMES = Array.new(4000) do |i|
  if i % 7 == 0
    ["<C method>", "Kernel#method_#{i}"]
  else
    ["/app/lib/module_#{i % 300}/file_#{i % 97}.rb", "Module#{i % 300}::Class#{i % 41}#method_#{i}"]
  end
end
LABEL_SETS = [{}, { "%GVL" => "blocked" }, { "%GVL" => "wait" }, { "%GC" => "mark" }, { "%GC" => "sweep" }]

per_file = total_mb * 1_000_000 / processes
processes.times do |n|
  pid = 1000 + n
  base = Array.new(25) { FRAMES[rng.rand(FRAMES.size)] }
  samples = []
  bytes = 0
  while bytes < per_file
    depth = 20 + rng.rand(60)
    frames = base.first(20) + Array.new(depth - 20) { FRAMES[rng.rand(FRAMES.size)] }
    if with_lines
      frames = frames.map { |f| f[0] == "<C method>" ? f : f + [10 + 3 * rng.rand(4), 10] }
    end
    s = [frames.reverse, 1 + rng.rand(5_000_000), 1 + rng.rand(8), rng.rand(LABEL_SETS.size)]
    bytes += JSON.generate(s).bytesize + 1
    samples << s
  end
  sets = LABEL_SETS.map { |ls| n.zero? ? ls : ls.merge("%pid" => pid.to_s) }
  doc = {
    rperf_version: "0.9.0", pid: pid, ppid: n.zero? ? 1 : 1000, mode: "wall", frequency: 1000,
    trigger_count: samples.size, sampling_count: samples.size, sampling_time_ns: samples.size * 900,
    detected_thread_count: 8, unique_frames: FRAMES.size, unique_stacks: samples.size,
    start_time_ns: 1_700_000_000_000_000_000 + n, duration_ns: 10_000_000_000,
    user_ns: 1_000_000_000, sys_ns: 100_000_000, dropped_samples: 0,
    command: ["ruby", "app.rb"], ruby_version: "3.4.5",
    aggregated_samples: samples, label_sets: sets,
  }
  Zlib::GzipWriter.open(File.join(dir, "profile-#{pid}-#{n}.json.gz"), 1) { |gz| gz.write(JSON.generate(doc)) }
end
