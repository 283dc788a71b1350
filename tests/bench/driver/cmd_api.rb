# tests/bench/driver/cmd_api.rb — `scripts/bench api [N]`: what the Rperf
# API costs per call (tests/bench/api_cost.rb) with the agent recording,
# deferred and dormant; then a deferred agent whose program never enters
# a profile block, against no agent, in paired runs.
module Bench
  module Api
    MODES = {
      "normal" => [{}, ""],
      "deferred" => [{ "RPERF_DEFER" => "1" }, ": each profile block pauses and resumes sampling"],
      "dormant" => [{ "RPERF_ENABLED" => "0" }, ": the calls inside a session at 1000 Hz"],
    }.freeze

    def self.per_call(n)
      puts "Rperf API cost: ns per call beyond the same loop calling a plain method"
      puts "with a block (best of 5 rounds of #{n} calls), under the agent at 1000 Hz."
      MODES.each do |mode, (extra, why)|
        puts extra.empty? ? "  #{mode}:" : "  #{mode} (#{extra.map { "#{_1}=#{_2}" }.join(" ")}#{why}):"
        out = Bench.capture(Bench.agent_env("api-#{mode}").merge(extra), RUBY, Bench.src("api_cost.rb"), n.to_s, "5")
        out.each_line { |l| printf("    %-24s %6s ns\n", *l.split.first(2)) }
        Bench.forget("api-#{mode}")
      end
    end

    def self.deferred_pairs(runs)
      puts "RPERF_DEFER=1, no profile block ever entered, against no agent: #{runs} pairs,"
      puts "order alternating; median wall ratio / median CPU ratio [fastest against fastest]."
      WORKLOADS.first(3).each do |w|
        deferred = [Bench.agent_env("deferred-session", RPERF_DEFER: 1), *Bench.workload(w)]
        pairs = Bench.measure_pairs(runs, Bench.workload(w), deferred) { Bench.forget("deferred-session") }
        printf("  %-18s %6.0f ms plain: %.3f / %.3f [%s]\n", w.join(" "), pairs.map { _1[0].wall }.min,
               Bench.median(Bench.wall_ratios(pairs)), Bench.median(Bench.cpu_ratios(pairs)), Bench.fastest_ratio(pairs))
      end
    end

    def self.run(n)
      per_call(n)
      puts
      deferred_pairs(11)
    end
  end

  command("api") { |n = nil| Api.run(count(n, 200_000, "N")) }
end
