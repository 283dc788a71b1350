# tests/bench/driver/cmd_overhead.rb — `scripts/bench overhead [RUNS]`:
# run time with the agent against without, paired runs on four
# workloads, at 1000 and 10000 Hz in cpu and wall mode; the GC counts
# that show both runs of a pair do the same work; the machine's own
# noise and what a bare timer thread costs it.
module Bench
  module Overhead
    CONFIGS = [%w[cpu 1000], %w[wall 1000], %w[cpu 10000], %w[wall 10000]].freeze

    # The share of the profiled runs spent inside the sampling job: their
    # sampling_time_ns over their duration_ns (the stat footer's
    # "profiler overhead").
    def self.sampling_share(session)
      docs = Bench.profiles(session).map { Bench.read_profile(_1) }
      total = docs.sum { _1.fetch("duration_ns") }
      total.zero? ? 0.0 : docs.sum { _1.fetch("sampling_time_ns") }.fdiv(total)
    end

    # One configuration's cell: "wall/cpu/share% [fastest]" over RUNS pairs.
    def self.cell(w, mode, hz, runs)
      profiled = [Bench.agent_env("overhead-session", RPERF_MODE: mode, RPERF_FREQUENCY: hz), *Bench.workload(w)]
      shares = []
      pairs = Bench.measure_pairs(runs, Bench.workload(w), profiled) do
        shares << sampling_share("overhead-session")
        Bench.forget("overhead-session")
      end
      format("%.3f/%.3f/%.2f%% [%s]", Bench.median(Bench.wall_ratios(pairs)), Bench.median(Bench.cpu_ratios(pairs)),
             Bench.median(shares) * 100, Bench.fastest_ratio(pairs))
    end

    # The GC count of a workload unprofiled and profiled in each mode.
    def self.gc_counts(w)
      File.write(Bench.work("gc_count.rb"), 'at_exit { $stderr.puts "rperf-bench-gc=#{GC.count}" }')
      count = lambda do |env|
        err, = Bench.capture_err(env, RUBY, "-r#{Bench.work("gc_count.rb")}", *Bench.workload(w)[1..])
        Bench.forget("gc-session")
        err[/^rperf-bench-gc=(\d+)/, 1]
      end
      line = "  GC count of #{w.join(" ")}: unprofiled #{count.({})}"
      %w[cpu wall].each { |mode| line += ", #{mode} #{count.(Bench.agent_env("gc-session", RPERF_MODE: mode))}" }
      puts line
    end

    # The machine's own noise: unprofiled / unprofiled pairs of the same
    # command, "median (min..max)" of the wall ratios, and fastest against
    # fastest.
    def self.noise_floor(runs, w)
      pairs = Bench.measure_pairs(runs, Bench.workload(w), Bench.workload(w), alternate: false)
      ratios = Bench.wall_ratios(pairs)
      format("median %.3f (%.3f..%.3f), fastest against fastest %s",
             Bench.median(ratios), ratios.min, ratios.max, Bench.fastest_ratio(pairs))
    end

    # What the machine charges for a thread woken by a timer and doing
    # nothing else (tests/e2e/tick_rate.c): the agent's worker is such a
    # thread, so this share of a core is the floor of the CPU ratio on a
    # one-thread run.
    def self.timer_thread_floor
      tick = Bench.work("tick_rate")
      Bench.run!("cc", "-O2", "-pthread", File.join(ROOT, "tests/e2e/tick_rate.c"), "-o", tick)
      [1000, 10_000].each do |hz|
        t = Bench.measure(tick, hz.to_s, "1")
        printf("  %5d Hz: %.1f%% of a core (%.1f us of CPU per wake-up)\n", hz, 100 * t.cpu / t.wall, 1000 * t.cpu / hz)
      end
    end

    def self.run(runs)
      puts <<~TEXT
        Overhead: profiled / unprofiled over #{runs} back-to-back pairs (order
        alternating): median wall-clock ratio / median CPU ratio (user+sys of all
        threads, the agent's worker included) / median share of the run spent
        inside the sampling job (the stat footer's "profiler overhead", measured
        in the process); in brackets, fastest profiled run / fastest unprofiled
        run, the wall-clock ratio least disturbed by the machine's noise.
        Targets: <= 1.01 at 1000 Hz, <= 1.05 at 10000 Hz.
        Like is compared with like: the agent keeps none of the program's objects,
        so both runs of a pair do the same garbage collection (GC counts of
        alloc.rb below; tests/e2e/heap_unchanged.sh holds them within 3%).

      TEXT
      printf("  %-22s %8s", "workload", "plain ms")
      CONFIGS.each { |mode, hz| printf(" %30s", "#{mode}@#{hz}Hz") }
      puts
      WORKLOADS.each do |w|
        printf("  %-22s %8.0f", w.join(" "), Bench.measure(*Bench.workload(w)).wall)
        CONFIGS.each { |mode, hz| printf(" %30s", cell(w, mode, hz, runs)) }
        puts
      end
      puts
      gc_counts(%w[alloc.rb 800000])
      puts "  Noise floor (unprofiled / unprofiled, cpu_bound.rb 34, #{runs} pairs): wall ratio"
      puts "  #{noise_floor(runs, %w[cpu_bound.rb 34])}"
      puts "  A bare C thread woken by a timer, doing nothing else, for 1 s:"
      timer_thread_floor
    end
  end

  command("overhead") { |runs = nil| Overhead.run(count(runs, 11, "RUNS")) }
end
