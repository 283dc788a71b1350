# tests/bench/driver/cmd_bursts.rb — `scripts/bench bursts [RUNS]`: a
# thread that works in bursts shorter than a tick between waits
# (tests/bench/bursts.rb: ~0.3 ms of Object#work, then a sleep, a pipe
# read, a Thread::Queue#pop or IO.select of ~0.7 ms), profiled at 1 kHz
# by this agent, the rperf gem 0.9.0, stackprof and vernier, rounds
# interleaved: each one's error on Object#work against the program's own
# clock. tests/e2e/bursts.sh checks this agent's figure in the suite.
module Bench
  module BurstsBench
    ITERATIONS = 1500
    # [kind, mode]: wall mode on the sleep alone, the one program with a
    # single thread (a profile's wall total holds every thread's time).
    CASES = [%w[sleep cpu], %w[pipe cpu], %w[queue cpu], %w[select cpu], %w[sleep wall]].freeze
    COLUMNS = %w[agent rperf-gem stackprof vernier].freeze

    # The command of one column, or nil where it does not apply or is not
    # installed.
    def self.command(column, kind, mode)
      peers = Bench.peers
      script = [Bench.src("bursts_peer.rb")]
      args = [mode, "1000", kind, ITERATIONS.to_s]
      case column
      when "agent"
        [{ "LD_PRELOAD" => AGENT, "RPERF_ENABLED" => "0", "RPERF_QUIET" => "1" }, RUBY,
         "-I", File.join(BUILD, "agent/ruby"), *script, "rperf", *args]
      when "rperf-gem" then peers.gem && [RUBY, "-I", peers.gem, *script, "rperf", *args]
      when "stackprof" then peers.stackprof && [RUBY, "-I", peers.stackprof, *script, "stackprof", *args]
      when "vernier" then mode == "wall" && peers.vernier && [RUBY, "-I", peers.vernier, *script, "vernier", *args]
      end
    end

    # Object#work's share in the profile against its share of the truth,
    # as an error in % of its time.
    def self.error(line)
      work, total, got, got_total = line.split.map(&:to_f)
      return nil if total <= 0 || got_total <= 0 || work <= 0
      ((got / got_total) / (work / total) - 1) * 100
    end

    def self.run(runs)
      Bench.peers
      puts <<~TEXT
        A thread working in bursts shorter than a tick between waits, at 1000 Hz,
        #{runs} interleaved rounds of #{ITERATIONS} bursts: the error of each profiler's share of
        Object#work against the share the program measured (its thread CPU time
        of its threads' in cpu mode, its wall time of the elapsed in wall mode),
        median and worst of the rounds. this agent: dormant, Rperf.start; rperf gem
        0.9.0: Rperf.start; stackprof 0.2.28; vernier 1.12.0 (wall mode only).
      TEXT
      printf("  %-14s", "wait, mode")
      COLUMNS.each { printf(" %18s", _1) }
      puts
      CASES.each do |kind, mode|
        errors = COLUMNS.to_h { [_1, []] }
        runs.times do |round|
          COLUMNS.rotate(round).each do |column|
            cmd = command(column, kind, mode) or next
            err = error(Bench.capture(*cmd, err: File::NULL))
            errors[column] << err if err
          end
        end
        printf("  %-14s", "#{kind}, #{mode}")
        COLUMNS.each do |column|
          e = errors[column]
          printf(" %18s", e.empty? ? "-" : format("%+.1f%% (%+.1f%%)", Bench.median(e), e.max_by(&:abs)))
        end
        puts
      end
    end
  end

  command("bursts") { |runs = nil| BurstsBench.run(count(runs, 5, "RUNS")) }
end
