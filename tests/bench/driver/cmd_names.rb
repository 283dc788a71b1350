# tests/bench/driver/cmd_names.rb — `scripts/bench names [N]`: the
# agent's own memory as a process serves N requests of N distinct names,
# each with its own label (tests/bench/names.rb), beside the same run
# without the agent: flat once the endpoint and label bounds are reached.
module Bench
  module Names
    # "requests rss_kb" lines of one run of names.rb, as pairs of numbers.
    def self.rss(env, total)
      Bench.capture(env, RUBY, Bench.src("names.rb"), total.to_s, [total / 10, 1].max.to_s).lines.map { _1.split.map(&:to_i) }
    end

    def self.run(total)
      plain = rss({}, total)
      agent = rss(Bench.agent_env("names-session"), total)
      puts "#{total} requests of #{total} distinct names, each with its own label (tests/bench/names.rb):"
      puts "resident memory with the agent, without it, and the difference, in MB"
      printf("  %10s %10s %10s %10s\n", "requests", "agent", "plain", "agent-share")
      agent.zip(plain).each do |(requests, with), (_, without)|
        printf("  %10d %10.1f %10.1f %10.1f\n", requests, with / 1024.0, without / 1024.0, (with - without) / 1024.0)
      end
      summary = Bench.capture(ANALYZE, "requests", Bench.work("names-session")).lines.grep(/more endpoint names/)
      summary.each { puts "  #{_1.lstrip}" }
    end
  end

  command("names") { |n = nil| Names.run(count(n, 1_000_000, "N")) }
end
