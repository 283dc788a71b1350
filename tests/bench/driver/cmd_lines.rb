# tests/bench/driver/cmd_lines.rb — `scripts/bench lines [RUNS]`: what
# recording lines (RPERF_LINES=1) costs against method-level frames: per
# sample, in run time, and in the profile's size.
module Bench
  module Lines
    COLUMNS = ["per sample us", "run ms", "file bytes", "frames", "stacks"].freeze

    # One profiled run with RPERF_LINES=LINES: the figures of COLUMNS.
    def self.run(mode, lines, workload)
      Bench.forget("lines-session")
      start = Bench.now
      Bench.run!(Bench.agent_env("lines-session", RPERF_MODE: mode, RPERF_LINES: lines), RUBY, *workload,
                 out: File::NULL)
      wall_ms = ((Bench.now - start) * 1000).floor
      path = Bench.profiles("lines-session").first
      d = Bench.read_profile(path)
      [d["sampling_time_ns"] / 1000.0 / d["sampling_count"], wall_ms, File.size(path), d["unique_frames"],
       d["unique_stacks"]]
    end

    # RUNS alternating runs without and with lines: the medians of each
    # column, "off -> on".
    def self.compare(mode, runs, workload)
      off = []
      on = []
      runs.times do
        off << run(mode, 0, workload)
        on << run(mode, 1, workload)
      end
      COLUMNS.each_with_index.map do |name, i|
        first = off.map { _1[i] }
        second = on.map { _1[i] }
        i.zero? ? format("%s %.3f -> %.3f", name, Bench.median(first), Bench.median(second))
                : "#{name} #{Bench.awk(Bench.median(first))} -> #{Bench.awk(Bench.median(second))}"
      end.join("; ")
    end

    def self.run_all(runs)
      puts <<~TEXT
        RPERF_LINES=1 against RPERF_LINES=0, 1000 Hz, medians of #{runs} alternating
        runs. Per sample is sampling_time_ns / sampling_count; file is the profile
        (.json.gz); frames and stacks are the unique ones it holds.
        Per-sample cost by stack depth (wall mode, tests/bench/deep.rb):
      TEXT
      [10, 150].each do |depth|
        printf("  depth %3d: %s\n", depth, compare("wall", runs, [Bench.src("deep.rb"), depth.to_s, "20000000"]))
      end
      puts "The overhead workloads (cpu mode):"
      WORKLOADS.each do |w|
        printf("  %-22s %s\n", w.join(" "), compare("cpu", runs, [Bench.src(w[0]), *w[1..]]))
      end
    end
  end

  command("lines") { |runs = nil| Lines.run_all(count(runs, 5, "RUNS")) }
end
