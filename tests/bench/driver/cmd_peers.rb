# tests/bench/driver/cmd_peers.rb — `scripts/bench peers [RUNS]`: run
# time beside the peers (the rperf gem, stackprof, vernier) in one run,
# rounds interleaved, ratios to the unprofiled run of the same round.
module Bench
  module PeersBench
    WORKLOADS = [%w[cpu_bound.rb 34], %w[threads.rb], %w[deep.rb 160 40000000]].freeze

    # "wall/cpu" median ratios of one column to the plain run of each round.
    def self.ratios(plain, column)
      rounds = column.keys
      walls = rounds.map { column[_1].wall / plain[_1].wall }
      cpus = rounds.map { column[_1].cpu / plain[_1].cpu }
      format("%.3f/%.3f", Bench.median(walls), Bench.median(cpus))
    end

    def self.run(runs)
      Bench.peers
      puts <<~TEXT
        Run time beside the peers, all at 1000 Hz, #{runs} interleaved rounds (each round
        runs every column once, in a rotating order): median wall-clock / CPU
        (user+sys, all threads) ratio to the unprofiled run of the same round.
        this agent: cpu mode, whole process; rperf gem 0.9.0: Rperf.start, cpu mode;
        stackprof 0.2.28: cpu mode; vernier 1.12.0: wall mode (it has no cpu mode).
      TEXT
      printf("  %-22s %9s", "workload", "plain ms")
      PEER_NAMES.drop(1).each { printf(" %15s", _1) }
      puts
      WORKLOADS.each do |w|
        results = Bench.peer_rounds(runs) do |_, _, cmd|
          Bench.measure(*cmd, Bench.src(w[0]), *w[1..]).tap { Bench.forget("peers-session") }
        end
        plain = results.fetch("plain")
        printf("  %-22s %9.0f", w.join(" "), Bench.median(plain.values.map(&:wall)))
        PEER_NAMES.drop(1).each do |name|
          printf(" %15s", results[name].empty? ? "-" : ratios(plain, results[name]))
        end
        puts
      end
    end
  end

  command("peers") { |runs = nil| PeersBench.run(count(runs, 7, "RUNS")) }
end
