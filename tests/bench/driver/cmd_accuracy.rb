# tests/bench/driver/cmd_accuracy.rb — `scripts/bench accuracy [RUNS]`
# and `scripts/bench accuracy-vs AGENT [RUNS]`: the per-method error of
# profiles of tests/bench/accuracy_workload.rb against the time each
# method really took, which the workload measures itself.
module Bench
  module Accuracy
    # One run of SCENARIO with THREADS threads in MODE under the agent
    # at AGENT_PATH, seed SEED; returns [average error (%), the table of
    # accuracy_report.rb titled TITLE].
    def self.run(agent_path, mode, scenario, threads, seed, title, env: {})
      session = "acc-#{mode}-#{scenario}-#{threads}-#{seed}"
      truth = Bench.work("truth.json")
      Bench.run!(Bench.agent_env(session, LD_PRELOAD: agent_path, RPERF_MODE: mode).merge(env), RUBY,
                 "-r", Bench.workload_so, Bench.src("accuracy_workload.rb"),
                 mode, threads.to_s, scenario, seed.to_s, truth)
      out = Bench.capture(RUBY, Bench.src("accuracy_report.rb"), *Bench.profiles(session), truth, title)
      Bench.forget(session)
      error = out[/^avg_error (\S+)/, 1] or abort("bench: accuracy_report.rb said no avg_error")
      [error.to_f, out.lines.grep_v(/^avg_error/).join]
    end

    # RUNS runs of one configuration, seeds 1..RUNS: one line with the
    # median and worst average error and, under it, the worst run's table.
    def self.config(mode, scenario, threads, runs, env: {})
      results = (1..runs).map do |seed|
        run(AGENT, mode, scenario, threads, seed, "  worst run: seed #{seed}", env: env)
      end
      errors = results.map(&:first)
      worst = results.max_by(&:first)
      mn = env.fetch("RUBY_MN_THREADS", ENV["RUBY_MN_THREADS"]) == "1"
      printf("%-8s %-10s x%d  median %5.2f%%  worst %5.2f%%  (runs: %s)\n", mn ? "#{mode} M:N" : mode,
             scenario, threads, Bench.median(errors), worst[0], errors.map { format("%.2f ", _1) }.join)
      puts worst[1]
    end

    SCENARIOS = [["fixed", 1], ["fixed", 3], ["c-first", 4], ["ruby-first", 4], ["random", 4], ["phases", 4]].freeze

    def self.all(runs)
      Bench.workload_so
      puts <<~TEXT
        Accuracy: per-method error of the profile against the time each method
        really took (thread CPU time in cpu mode; wall time in wall mode, waits
        for the GVL included), averaged over the methods of a run; 1000 Hz.
        Methods: Ruby busy-wait, C busy-wait holding the GVL, C sleep holding
        the GVL, C sleep without it. Scenarios (tests/bench/accuracy_workload.rb):
        fixed (10 rounds of 50/40/30/20 ms), c-first / ruby-first (12 calls of
        10-70 ms in random order, each thread beginning with a GVL-holding C call
        / a Ruby busy-wait), random; #{runs} runs (seeds) each. Each method boundary
        costs about half a sampling period (0.5 ms): the time after a method's
        last sample goes to the next. Target: every run <= 2%.

      TEXT
      %w[cpu wall].each do |mode|
        SCENARIOS.each { |scenario, threads| config(mode, scenario, threads, runs) }
      end
      puts
      puts <<~TEXT
        M:N threads (RUBY_MN_THREADS=1): a thread's CPU clock is its native thread's,
        shared, so cpu mode is judged on the phases scenario only (truth: the
        process's CPU over each phase); wall mode on every scenario.
      TEXT
      mn = { "RUBY_MN_THREADS" => "1" }
      [["phases", 4], ["fixed", 3], ["random", 4]].each do |scenario, threads|
        config("cpu", scenario, threads, runs, env: mn) if scenario == "phases"
        config("wall", scenario, threads, runs, env: mn)
      end
    end

    # The threaded scenarios with this agent and OTHER, interleaved run by
    # run (same seeds), so that the machine's load falls on both alike.
    def self.versus(other, runs)
      Bench.usage_error("bench: no agent at #{other}") unless File.file?(other)
      Bench.workload_so
      puts "Accuracy, four threads, cpu mode, 1000 Hz: per-run average error (%) of this"
      puts "agent (#{AGENT}) and of #{other}, runs interleaved with the same seeds."
      over = { ours: 0, theirs: 0, only_ours: 0 }
      total = 0
      %w[c-first ruby-first random phases].each do |scenario|
        ours = []
        theirs = []
        (1..runs).each do |seed|
          ours << run(AGENT, "cpu", scenario, 4, seed, "").first
          theirs << run(other, "cpu", scenario, 4, seed, "").first
          total += 1
          over[:ours] += 1 if ours.last > 2
          over[:theirs] += 1 if theirs.last > 2
          over[:only_ours] += 1 if ours.last > 2 && theirs.last <= 2
        end
        [["this", ours, scenario], ["that", theirs, ""]].each do |who, errors, name|
          printf("  %-10s %s: worst %5.2f%%  (%s)\n", name, who, errors.max, errors.map { format("%.2f ", _1) }.join)
        end
      end
      puts "  runs above 2%: this agent #{over[:ours]} of #{total}, the other #{over[:theirs]} of #{total};"
      puts "  runs where this agent is above 2% and the other within it: #{over[:only_ours]}"
    end
  end

  command("accuracy") { |runs = nil| Accuracy.all(count(runs, 10, "RUNS")) }
  command("accuracy-vs") do |other = nil, runs = nil|
    usage_error("usage: scripts/bench accuracy-vs AGENT [RUNS]") unless other
    Accuracy.versus(other, count(runs, 9, "RUNS"))
  end
end
