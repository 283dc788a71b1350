# tests/bench/driver/cmd_sample.rb — `scripts/bench sample`: what one
# sample costs — inside the agent's sampling job at two stack depths, the
# floor of the kernel's and Ruby's own part of it, and, beside the peers,
# what a sample costs the program and how many each profiler takes.
module Bench
  module Sample
    DEPTHS = [10, 150].freeze

    # The agent's own figure: sampling_time_ns / sampling_count (us) of
    # one run of deep.rb at DEPTH under the agent at AGENT_PATH.
    def self.job_cost(mode, depth, agent_path = AGENT)
      Bench.forget("sample-session")
      Bench.run!(Bench.agent_env("sample-session", RPERF_MODE: mode, LD_PRELOAD: agent_path), RUBY,
                 Bench.src("deep.rb"), depth.to_s, "20000000")
      d = Bench.profile_of("sample-session")
      format("%.3f", d["sampling_time_ns"] / 1000.0 / d["sampling_count"])
    end

    def self.job_costs
      %w[cpu wall].each do |mode|
        DEPTHS.each do |depth|
          costs = Array.new(5) { job_cost(mode, depth) }
          printf("  %-4s depth %3d: %s us per sample (runs: %s)\n", mode, depth,
                 Bench.awk(Bench.median(costs.map(&:to_f))), costs.join(" "))
        end
      end
    end

    # tests/bench/sample_floor.rb, 5 runs: medians of its four figures.
    def self.floors
      DEPTHS.each do |depth|
        runs = Array.new(5) do
          Bench.capture(RUBY, "-r", Bench.workload_so, Bench.src("sample_floor.rb"), depth.to_s).split.map(&:to_i)
        end
        clock, frames, cold_clock, cold_frames = runs.transpose.map { Bench.awk(Bench.median(_1)) }
        printf("  floor depth %3d: thread CPU clock %s ns warm, %s ns cold; rb_profile_frames %s ns warm, %s ns cold\n",
               depth, clock, cold_clock, frames, cold_frames)
      end
    end

    # One column's run beside the peers: [wall, cpu, cpu of a run of no
    # work, samples taken] (the agent's from its profile, a peer's from
    # the file PEER_SAMPLES names).
    def self.peer_run(name, cmd, depth, iterations)
      idle = Bench.measure(*cmd, Bench.src("deep.rb"), depth.to_s, "0").cpu
      Bench.forget("peers-session")
      count_file = Bench.work("peer-samples")
      FileUtils.rm_f(count_file)
      t = Bench.measure(*Bench.with_env(cmd, "PEER_SAMPLES" => count_file), Bench.src("deep.rb"), depth.to_s,
                        iterations.to_s)
      samples = case name
                when "plain" then 0
                when "agent" then Bench.profile_of("peers-session")["sampling_count"]
                else File.read(count_file).to_i
                end
      [t.wall, t.cpu, idle, samples]
    end

    # "cost us, rate/s" of one column: (CPU beyond the unprofiled run of
    # its round - the same beyond a run of no work) / samples taken, and
    # samples per second of the unprofiled run; medians.
    def self.peer_cell(plain, column)
      rows = column.filter_map do |round, (_, cpu, idle, samples)|
        next unless samples.positive?
        p_wall, p_cpu, p_idle, = plain.fetch(round)
        [((cpu - p_cpu) - (idle - p_idle)) * 1000 / samples, samples / (p_wall / 1000)]
      end
      return "-" if rows.empty?
      format("%.1f us, %.0f/s", Bench.median(rows.map(&:first)), Bench.median(rows.map(&:last)))
    end

    # What a sample costs the program, beside the peers: the CPU time a
    # profiled run takes beyond the unprofiled one of its round, less what
    # the same profiler costs on a run of no work (loading, starting,
    # stopping, making its profile of nothing), divided by the samples it
    # took — the timer, the walk and the tables as the program pays for
    # them; and how many samples each took per second of the unprofiled
    # run (1000 asked).
    def self.beside_peers(runs: 7, iterations: 60_000_000)
      Bench.peers
      puts
      puts <<~TEXT
        Beside the peers (deep.rb, #{iterations} iterations, 1000 Hz, #{runs} interleaved
        rounds): (CPU beyond the unprofiled run - the same beyond a run of no work)
        / samples taken, in us, median; and samples taken per second of the
        unprofiled run. this agent and the rperf gem 0.9.0: cpu mode; stackprof
        0.2.28: cpu mode; vernier 1.12.0: wall mode (it has no cpu mode).
      TEXT
      printf("  %-9s", "")
      PEER_NAMES.drop(1).each { printf(" %19s", _1) }
      puts
      DEPTHS.each do |depth|
        results = Bench.peer_rounds(runs) { |_, name, cmd| peer_run(name, cmd, depth, iterations) }
        printf("  depth %3d", depth)
        PEER_NAMES.drop(1).each { printf(" %19s", peer_cell(results.fetch("plain"), results[_1])) }
        puts
      end
    end

    # The job's cost with this agent and OTHER, run by run interleaved,
    # so that the machine's load falls on both alike.
    def self.versus(other, runs)
      Bench.usage_error("bench: no agent at #{other}") unless File.file?(other)
      puts "Per-sample cost (sampling_time_ns / sampling_count, us, deep.rb 20000000, 1000 Hz) of this"
      puts "agent (#{AGENT}) and of #{other}, #{runs} runs each, interleaved: median (runs)."
      %w[wall cpu].each do |mode|
        DEPTHS.each do |depth|
          ours = []
          theirs = []
          runs.times do
            ours << job_cost(mode, depth)
            theirs << job_cost(mode, depth, other)
          end
          [["this", ours], ["that", theirs]].each do |who, costs|
            printf("  %-4s depth %3d %s: %s us (%s)\n", mode, depth, who, Bench.awk(Bench.median(costs.map(&:to_f))),
                   costs.join(" "))
          end
        end
      end
    end

    # One run of deep.rb at DEPTH for ITERATIONS under the gem (lib
    # folder on the load path) or this agent's API: [us per sample, samples].
    def self.api_job_cost(who, mode, depth, iterations)
      prefix = who == :gem ? [RUBY, "-I", Bench.peers.gem] : [{ "LD_PRELOAD" => AGENT, "RPERF_ENABLED" => "0" }, RUBY]
      Bench.capture(*prefix, Bench.src("job_cost.rb"), mode, "1000", Bench.src("deep.rb"), depth.to_s,
                    iterations.to_s).split.map(&:to_f)
    end

    # The job's cost with this agent and with the rperf gem 0.9.0, the
    # same way for both (each one's own sampling_time_ns / sampling_count,
    # recording started by Rperf.start after boot), run by run interleaved.
    def self.beside_gem(runs, iterations: 100_000_000)
      return puts("  (the rperf gem #{PEER_VERSIONS.fetch("rperf")} is not installed: no figures)") unless Bench.peers.gem
      puts <<~TEXT
        Per-sample cost beside the rperf gem #{PEER_VERSIONS.fetch("rperf")} (Ruby #{RUBY_VERSION}): each one's own
        sampling_time_ns / sampling_count around deep.rb DEPTH #{iterations} (Rperf.start
        after boot, 1000 Hz; this agent preloaded dormant), #{runs} interleaved runs each:
        median us (all runs), and this agent's median / the gem's.
      TEXT
      %w[wall cpu].each do |mode|
        DEPTHS.each do |depth|
          costs = { agent: [], gem: [] }
          runs.times do |i|
            order = i.even? ? %i[agent gem] : %i[gem agent]
            order.each { |who| costs[who] << api_job_cost(who, mode, depth, iterations).first }
          end
          ours, gems = costs.values_at(:agent, :gem).map { Bench.median(_1) }
          printf("  %-4s depth %3d: agent %.3f us, gem %.3f us: %.2fx   (agent %s; gem %s)\n", mode, depth, ours, gems,
                 ours / gems, costs[:agent].map { format("%.2f", _1) }.join(" "), costs[:gem].map { format("%.2f", _1) }.join(" "))
        end
      end
    end

    def self.run
      Bench.workload_so
      puts <<~TEXT
        Per-sample cost: sampling_time_ns / sampling_count of the profile
        (time inside the postponed job), median of 5 runs, 1000 Hz. The floor
        is what the kernel and Ruby take by themselves at the same depth: one
        thread CPU clock read (cpu mode; a system call, no vDSO) and one
        rb_profile_frames, medians of 5 runs; warm: 200,000 calls in a row;
        cold: 2,000 calls, each after evicting the caches (8 MB). A job run once
        a millisecond meets caches about as cold, so compare its cost with the
        cold floor: clock + frames in cpu mode, frames alone in wall mode.
      TEXT
      job_costs
      floors
      puts
      beside_gem(7)
      beside_peers
    end
  end

  command("sample") { Sample.run }
  command("sample-gem") { |runs = nil| Sample.beside_gem(count(runs, 7, "RUNS")) }
  command("sample-vs") do |other = nil, runs = nil|
    usage_error("usage: scripts/bench sample-vs AGENT [RUNS]") unless other
    Sample.versus(other, count(runs, 5, "RUNS"))
  end
end
