# tests/bench/driver/cmd_churn.rb — `scripts/bench churn [MINUTES]`: a
# process that loads, runs and drops code without end (tests/bench/
# churn.rb) under the agent — whole profile in parts (RPERF_INTERVAL=10),
# allocations sampled (RPERF_ALLOC=100) — and the same program without
# it, side by side at the same time: their resident and peak memory
# minute by minute, and the names the agent held at the end. Frame names
# are let go of at parts, so the agent's share stays flat however much
# code went by.
module Bench
  module Churn
    def self.lines(io) = io.each_line.map { _1.split.then { |m, r, rss, hwm| [m.to_f, r.to_i, rss.to_i, hwm.to_i] } }

    # The agent's share at `rounds`: its resident memory less the plain
    # run's at as many rounds (interpolated; the two do not run at one
    # speed), "-" past the plain run's rounds.
    def self.share(rss, rounds, plain)
      (r0, m0), (r1, m1) = plain.map { [_2, _3] }.each_cons(2).find { |(a, _), (b, _)| a <= rounds && rounds <= b } ||
                           [[0, plain.first&.[](2) || 0], [plain.first&.[](1) || 1, plain.first&.[](2) || 0]]
      return "-" if r1.nil? || rounds > (plain.last&.[](1) || 0)
      at = r1 == r0 ? m0 : m0 + (m1 - m0) * (rounds - r0).fdiv(r1 - r0)
      format("%.1f", (rss - at) / 1024.0)
    end

    def self.run(minutes)
      env = Bench.agent_env("churn-session", RPERF_INTERVAL: 10, RPERF_ALLOC: 100, RPERF_VERBOSE: 1)
      cmd = [RUBY, Bench.src("churn.rb"), minutes.to_s, "60"]
      plain_out, agent_out = IO.pipe, IO.pipe
      err = Bench.work("churn-agent.err")
      plain = Bench.background(*cmd, out: plain_out[1])
      agent = Bench.background(env, *cmd, out: agent_out[1], err: err)
      [plain_out[1], agent_out[1]].each(&:close)
      readers = [plain_out[0], agent_out[0]].map { |r| Thread.new { lines(r) } }
      Bench.wait_background(plain)
      Bench.wait_background(agent)
      plain_rows, agent_rows = readers.map(&:value)
      puts "#{minutes} minutes of code loaded, run and dropped (tests/bench/churn.rb), with the agent " \
           "(RPERF_INTERVAL=10 RPERF_ALLOC=100) and without, side by side; memory in MB"
      printf("  %7s %12s %12s %9s %9s %9s %9s %9s\n", "minutes", "rounds-agent", "rounds-plain", "rss-agent",
             "rss-plain", "hwm-agent", "hwm-plain", "agent+")
      agent_rows.zip(plain_rows).each do |(m, ra, rss_a, hwm_a), (_, rp, rss_p, hwm_p)|
        printf("  %7.1f %12d %12d %9.1f %9.1f %9.1f %9.1f %9s\n", m, ra, rp || 0, rss_a / 1024.0, (rss_p || 0) / 1024.0,
               hwm_a / 1024.0, (hwm_p || 0) / 1024.0, share(rss_a, ra, plain_rows))
      end
      File.readlines(err).grep(/frame names|parts written|bound/).each { puts "  #{_1.strip}" }
      puts "  profiles: #{Bench.profiles("churn-session").size}"
    end
  end

  command("churn") { |m = nil| Churn.run(count(m, 30, "MINUTES")) }
end
