# tests/bench/driver/cmd_startup.rb — `scripts/bench startup [N]`: the
# fixed cost the preloaded agent adds to a process, `ruby -e 1` and a
# process that is not Ruby (`sh -c true`), against the same without it.
module Bench
  module Startup
    # Wall milliseconds of one run, output discarded.
    def self.run_ms(cmd)
      start = Bench.now
      Process.wait(Process.spawn(*cmd, out: File::NULL, err: File::NULL))
      (Bench.now - start) * 1000
    end

    # N alternating runs of A and B: means and fastest runs (DIGITS
    # decimals, in ms) and their differences.
    def self.pairs(n, label, digits, a, b)
      without = []
      with = []
      n.times do
        without << run_ms(a)
        with << run_ms(b)
        Bench.forget("overhead-session")
      end
      d = digits
      m0, m1, f0, f1 = Bench.mean(without), Bench.mean(with), without.min, with.min
      printf("  %-12s mean %.*f ms without, %.*f ms with the agent: %+.*f ms;", label, d, m0, d, m1, d, m1 - m0)
      printf(" fastest %.*f / %.*f ms: %+.*f ms\n", d, f0, d, f1, d, f1 - f0)
    end

    # Both sides go through env(1), the agent named on env's command line,
    # so that each pair execs the same programs and only the measured one
    # is preloaded.
    def self.run(n)
      sh_n = n * 4
      puts "Fixed cost per process: #{n} alternating runs of `ruby -e 1` and #{sh_n} of"
      puts "`sh -c true`, with and without the agent preloaded (both through env)."
      agent = Bench.agent_env("overhead-session", RPERF_MODE: "cpu", RPERF_FREQUENCY: 1000).map { "#{_1}=#{_2}" }
      pairs(n, "ruby -e 1:", 2, ["env", RUBY, "-e", "1"], ["env", *agent, RUBY, "-e", "1"])
      pairs(sh_n, "sh -c true:", 3, %w[env sh -c true], ["env", "LD_PRELOAD=#{AGENT}", "sh", "-c", "true"])
    end
  end

  command("startup") { |n = nil| Startup.run(count(n, 50, "N")) }
end
