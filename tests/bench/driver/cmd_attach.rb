# tests/bench/driver/cmd_attach.rb — `scripts/bench attach [CYCLES]`:
# rperf attach / detach on a running program (tests/bench/pauses.rb):
# how long its timer thread stops, the longest pause of its Ruby thread
# while the agent starts and while it stops and writes, beside the same
# program's longest pause in as long a stretch with nothing done; then
# what a dormant preloaded agent (RPERF_ENABLED=0) costs.
module Bench
  module Attach
    # CLOCK_REALTIME in ns, the clock of pauses.rb's gaps.
    def self.realtime_ns = Process.clock_gettime(Process::CLOCK_REALTIME, :nanosecond)

    # One command handed to the agent by rperf-attach: how long the timer
    # thread stopped (ms, as rperf-attach -v says) and the window [from,
    # to] (ns) of the whole hand-over.
    def self.command(pid, verb, dir, *settings)
      from = realtime_ns
      request = [verb, *settings, "reply=#{dir}/.reply-#{verb}"].join("\n")
      err, ok = Bench.capture_err(File.join(BUILD, "attach/rperf-attach"), "-v", "--wait", "10", pid.to_s, AGENT,
                                  request)
      abort("bench attach: #{err}") unless ok
      [err.scan(/was stopped for ([0-9.]+) ms/).flatten.map(&:to_f), [from, realtime_ns]]
    end

    # The program's longest gap (ms, two decimals) that touches WINDOW,
    # from the gaps pauses.rb wrote ("START_NS GAP_NS" lines).
    def self.longest_gap_ms(gaps, (from, to))
      longest = gaps.select { |start, gap| start + gap >= from && start <= to }.map(&:last).max || 0
      (longest / 1e6).round(2)
    end

    def self.cycles(pid, dir, n)
      windows = { starts: [], stops: [], idle: [] }
      stopped = []
      n.times do
        from = realtime_ns
        sleep 0.05
        windows[:idle] << [from, realtime_ns]
        [["start", "dir=#{dir}", "mode=cpu", "frequency=1000"], ["stop"]].each do |verb, *settings|
          times, window = command(pid, verb, dir, *settings)
          stopped.concat(times)
          windows[verb == "start" ? :starts : :stops] << window
          sleep(verb == "start" ? 0.5 : 0)
        end
        FileUtils.rm_f(Dir.glob(File.join(dir, "profile-*.json.gz")))
        sleep 0.2
      end
      [windows, stopped]
    end

    def self.run(n)
      dir = Dir.mktmpdir("attach.", WORK)
      stop = Bench.work("stop")
      gaps_file = Bench.work("gaps")
      pid = Bench.background(RUBY, Bench.src("pauses.rb"), stop, gaps_file, out: Bench.work("pauses.out"))
      sleep 0.05 until File.size?(Bench.work("pauses.out"))
      sleep 0.5
      windows, stopped = cycles(pid, dir, n)
      FileUtils.touch(stop)
      Bench.wait_background(pid)
      gaps = File.readlines(gaps_file).map { _1.split.map(&:to_i) }.reject(&:empty?)
      longest = windows.transform_values { |list| list.map { longest_gap_ms(gaps, _1) } }
      puts "rperf attach on a running process (#{n} cycles of start, 0.5 s of cpu-mode"
      puts "recording at 1000 Hz, stop; tests/bench/pauses.rb runs 50 us steps): median (max)"
      puts "  Ruby's timer thread stopped by rperf-attach, per command: #{Bench.median_max(stopped)} ms"
      puts "    (the first one loads the agent)"
      puts "  longest pause of the program's thread while the agent starts: #{Bench.median_max(longest[:starts])} ms"
      puts "  longest pause while it stops and writes the profile:          #{Bench.median_max(longest[:stops])} ms"
      puts "  longest pause in 50 ms with nothing done (the machine's noise): #{Bench.median_max(longest[:idle])} ms"
      puts
      dormant_cost(7)
    end

    # What a preloaded dormant agent costs: unprofiled / RPERF_ENABLED=0.
    def self.dormant_cost(runs)
      puts "A dormant preloaded agent (RPERF_ENABLED=0, waiting for rperf ctl): run time"
      puts "against unprofiled, median wall-clock ratio over #{runs} alternating pairs [fastest/fastest]"
      dormant = { "LD_PRELOAD" => AGENT, "RPERF_ENABLED" => "0" }
      WORKLOADS.each do |w|
        pairs = Bench.measure_pairs(runs, Bench.workload(w), [dormant, *Bench.workload(w)])
        printf("  %-22s %.3f [%s]\n", w.join(" "), Bench.median(Bench.wall_ratios(pairs)), Bench.fastest_ratio(pairs))
      end
    end
  end

  command("attach") { |cycles = nil| Attach.run(count(cycles, 10, "CYCLES")) }
end
