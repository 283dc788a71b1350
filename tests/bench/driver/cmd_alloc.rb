# tests/bench/driver/cmd_alloc.rb — `scripts/bench alloc [RUNS]`: what
# allocation sampling (RPERF_ALLOC) costs on two allocation-heavy
# workloads, in run time and in callgrind's instruction counts: without
# the agent, with it, at the default rate following sampled objects or
# not, in window mode; per sampled allocation and per allocation not
# sampled; memory per followed object; beside a NEWOBJ hook that does
# nothing, stackprof's object mode and vernier's allocation tracking.
module Bench
  module Alloc
    RATE = 128 # RP_ALLOC_RATE_DEFAULT (agent/base/config.h)
    NAMES = %w[plain noop-hook agent agent-alloc agent-alloc-nofollow agent-window stackprof vernier
               vernier-retained].freeze

    # The command prefix (environment and interpreter) of a configuration,
    # or nil when it cannot run here.
    # The command (environment and interpreter, and the timing wrapper
    # alloc_timed.rb before the workload) of a configuration, or nil when
    # it cannot run here.
    def self.config(name)
      agent = Bench.agent_env("alloc-session")
      timed = ->(as, *prefix, rate: RATE) { [*prefix, RUBY, Bench.src("alloc_timed.rb"), as, rate.to_s] }
      peer = ->(lib, as, rate: RATE) { lib && timed.(as, rate: rate).insert(1, "-I", lib) }
      case name
      when "plain" then timed.("none")
      when "noop-hook" then timed.("noop-hook").insert(1, "-r", Bench.workload_so)
      when "agent" then timed.("agent", agent)
      when "agent-alloc" then timed.("agent", agent.merge("RPERF_ALLOC" => RATE.to_s))
      when "agent-alloc-nofollow" then timed.("agent", agent.merge("RPERF_ALLOC" => RATE.to_s, "RPERF_ALLOC_FOLLOW" => "0"))
      when "agent-window" then timed.("agent", agent.merge("RPERF_ALLOC" => "window"))
      when "agent-every" then timed.("agent", agent.merge("RPERF_ALLOC" => "1", "RPERF_ALLOC_FOLLOW" => "0"))
      when "agent-never" then timed.("agent", agent.merge("RPERF_ALLOC" => "100000000", "RPERF_ALLOC_FOLLOW" => "0"))
      when "stackprof" then peer.(Bench.peers.stackprof, "stackprof")
      when "stackprof-every" then peer.(Bench.peers.stackprof, "stackprof", rate: 1)
      when "stackprof-never" then peer.(Bench.peers.stackprof, "stackprof", rate: 999_999) # its maximum
      when "vernier" then peer.(Bench.peers.vernier, "vernier")
      when "vernier-retained" then peer.(Bench.peers.vernier, "vernier-retained")
      end
    end

    # One run's times (ms): the whole process's wall, and the workload's
    # own CPU (every thread's), wall, and its thread's CPU, as
    # alloc_timed.rb measures them.
    Run = Struct.new(:whole, :cpu, :wall, :thread)

    def self.run_once(cmd, workload)
      out = Bench.work("alloc-timed.txt")
      File.delete(out) if File.exist?(out)
      whole = Bench.measure(*Bench.with_env(cmd, "RPERF_BENCH_TIMED" => out), *workload).wall
      Bench.forget("alloc-session")
      Run.new(whole, *File.read(out).split.map(&:to_f))
    end

    # The runs of each configuration of NAMES that can run, RUNS rounds of
    # one run each, in the opposite order every other round (so that
    # neither end of a round is favoured): { name => [Run of round...] }.
    def self.rounds(runs, names, workload)
      rounds = Hash.new { |h, k| h[k] = [] }
      runnable = names.select { config(_1) }
      runs.times do |round|
        (round.odd? ? runnable.reverse : runnable).each { rounds[_1] << run_once(config(_1), workload) }
      end
      rounds
    end

    # The median over rounds of A's time over B's in the same round: the
    # machine's speed, which drifts by tens of percent from one second to
    # the next here, weighs on both alike.
    def self.paired_ratio(rounds, a, b, time) =
      Bench.median(rounds[a].zip(rounds[b]).map { |x, y| x[time] / y[time] })

    # The times of a Run the table shows: the thread's CPU leaves out what
    # a profiler's own threads take (the agent's worker, woken at every
    # tick of its time sampling; vernier's sampler).
    TIMES = [[:whole, "whole process, wall"], [:wall, "the workload, wall"], [:cpu, "the workload, CPU"],
             [:thread, "its thread's CPU"]].freeze

    def self.table(runs)
      [%w[alloc.rb 600000], %w[alloc_app.rb 100000]].each do |w|
        rounds = rounds(runs, NAMES, [Bench.src(w[0]), *w[1..]])
        puts "  #{w.join(" ")}:"
        TIMES.each do |time, what|
          printf("    %-22s", what)
          NAMES.each do |name|
            next printf(" %-24s", "#{name} -") if rounds[name].empty?
            cell = format("%s %.0f (%.2f)", name, Bench.median(rounds[name].map(&time)),
                          paired_ratio(rounds, name, "plain", time))
            printf(" %-24s", cell)
          end
          puts
        end
        next if rounds["stackprof"].empty?
        head_to_head = TIMES.map do |time, what|
          fastest = rounds["agent-alloc"].map(&time).min / rounds["stackprof"].map(&time).min
          format("%s %.3f [%.3f]", what.delete_prefix("the workload, "),
                 paired_ratio(rounds, "agent-alloc", "stackprof", time), fastest)
        end
        puts "    agent-alloc / stackprof, the median of the rounds' ratios [fastest against fastest]: " \
             "#{head_to_head.join(", ")}"
      end
      puts
    end

    # Per allocation, from the fastest runs: every one sampled against
    # none sampled (the hook on), and none sampled against no hook;
    # objects not followed.
    def self.per_allocation(runs)
      n = allocations_of(Bench.src("alloc.rb"), "600000")
      rounds = rounds(runs, %w[agent agent-never agent-every], [Bench.src("alloc.rb"), "600000"])
      agent, never, every = %w[agent agent-never agent-every].map { |name| rounds[name].map(&:wall).min }
      printf("  alloc.rb 600000: %d allocations. Hook on, none sampled: %+.0f ns per allocation;\n", n,
             (never - agent) * 1e6 / n)
      printf("  every one sampled (stack captured and folded): %.2f us per sampled allocation\n", (every - never) * 1e3 / n)
    end

    # How many objects SCRIPT ARG allocates, by Ruby's own count.
    def self.allocations_of(script, arg)
      counter = 'ARGV.replace([ENV["ARG"]]); b = GC.stat(:total_allocated_objects)
                 load ENV["SCRIPT"]; print GC.stat(:total_allocated_objects) - b'
      Bench.capture({ "SCRIPT" => script, "ARG" => arg }, RUBY, "-e", counter).to_i
    end

    # The instructions callgrind counts running CMD, and what CMD said on
    # its standard error.
    def self.callgrind(cmd)
      env, argv = Bench.split_env(cmd)
      err, = Bench.capture_err(env, "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv)
      Bench.forget("alloc-session")
      [err[/Collected : (\d+)/, 1].to_i, err]
    end

    def self.instructions(cmd) = callgrind(cmd).first

    # What one allocation costs in instructions (callgrind), in each
    # configuration: the workload against the same run with no allocation
    # (argument 0), so that each configuration's own start-up cancels out.
    def self.instruction_counts
      return puts("  (no valgrind: instruction counts left out)") unless Bench.which?("valgrind")
      objects = Bench.work("objects.rb")
      File.write(objects, "n = Integer(ARGV.fetch(0)); GC.start; n.times { Object.new }\n")
      [[objects, "1000000", "1 M Object.new"],
       [Bench.src("alloc.rb"), "100000", "alloc.rb 100000: allocations and their minor GCs"],
       [Bench.src("alloc_app.rb"), "20000", "alloc_app.rb 20000: JSON round trips"]].each do |script, arg, what|
        allocations = allocations_of(script, arg) - allocations_of(script, "0")
        cells = %w[plain noop-hook agent-never agent-alloc agent-alloc-nofollow stackprof].filter_map do |name|
          cmd = config(name) or next
          per = (instructions([*cmd, script, arg]) - instructions([*cmd, script, "0"])).fdiv(allocations)
          format(" %s %.0f", name, per)
        end
        puts "  instructions per allocation (callgrind, #{what}, #{allocations} allocations):#{cells.join(",")}"
      end
      puts <<~TEXT.gsub(/^/, "  ")
        (the run with the argument 0 taken away, so that start-up cancels out; agent-never: the
        hook installed, no allocation sampled: the countdown alone; agent-alloc: the default
        rate, following the sampled objects)
      TEXT
      per_sampled_allocation
    end

    # What a sampled allocation costs in instructions: every allocation of
    # alloc.rb sampled against none (the agent's objects not followed),
    # each run less its run with argument 0.
    def self.per_sampled_allocation
      script = Bench.src("alloc.rb")
      allocations = allocations_of(script, "20000") - allocations_of(script, "0")
      own = ->(name) { instructions([*config(name), script, "20000"]) - instructions([*config(name), script, "0"]) }
      cells = [%w[agent agent-every agent-never], %w[stackprof stackprof-every stackprof-never]]
              .filter_map do |label, every, never|
        config(every) && format(" %s %.0f", label, (own.(every) - own.(never)).fdiv(allocations))
      end
      puts "  instructions per sampled allocation (callgrind, alloc.rb 20000, every allocation sampled " \
           "against none):#{cells.join(",")}"
    end

    # Window mode against time only, in instructions: the workload's own
    # (the run with argument 0 taken away), in three runs of each, and the
    # share of allocations the windows saw. Under valgrind the program
    # runs some 50 times slower by the wall clock that opens the windows:
    # they see the same share of its work, but a run meets 50 times more
    # windows per unit of work than natively, so what each window costs
    # by itself (installing and removing the hook) weighs 50 times more
    # here: an upper bound of the native cost.
    def self.window_instructions
      [[Bench.src("alloc.rb"), "100000"], [Bench.src("alloc_app.rb"), "20000"]].each do |script, arg|
        own = lambda do |cmd|
          count, err = callgrind([*cmd, script, arg])
          [count - instructions([*cmd, script, "0"]), err[/windows saw ([0-9.]+%)/, 1]]
        end
        runs = Array.new(3) do
          [own.(config("agent")).first, own.(Bench.with_env(config("agent-window"), "RPERF_VERBOSE" => "1"))]
        end
        cells = runs.map do |time_only, (window, seen)|
          cost = 100.0 * (window - time_only) / time_only
          [format("%+.2f%% with %s of the allocations in windows", cost, seen || "?"), seen && cost / seen.to_f]
        end
        per_point = cells.filter_map(&:last)
        printf("  window mode over time only (callgrind, %s %s): %s; %s%% of cost per 1%% of the allocations seen\n",
               File.basename(script), arg, cells.map(&:first).join(", "),
               per_point.empty? ? "?" : format("%.2f to %.2f", per_point.min, per_point.max))
      end
    end

    # The agent's RPERF_VERBOSE line about allocation sampling on a
    # workload with RPERF_ALLOC=SETTING and containing WORDS, without its
    # prefix.
    def self.verbose_line(setting, words, workload = %w[alloc.rb 600000])
      env = Bench.agent_env("alloc-session", RPERF_VERBOSE: 1, RPERF_ALLOC: setting)
      err, = Bench.capture_err(env, RUBY, Bench.src(workload[0]), *workload[1..])
      Bench.forget("alloc-session")
      line = err.lines.find { _1.include?(words) }.to_s.chomp
      line.delete_prefix("rperf: allocation sampling: ").delete_prefix("[Rperf] ")
    end

    def self.run(runs)
      Bench.workload_so
      Bench.peers
      puts <<~TEXT
        Allocation sampling: median ms of #{runs} rounds (one run of each configuration a round),
        and the median of the rounds' ratios to the unprofiled run of the same round: the whole
        process's wall time (its start, a peer's loading, the agent's profile written), and the
        workload's own wall and CPU time (every thread's), from its first line to its last.
        agent: cpu mode at 1000 Hz; agent-alloc: RPERF_ALLOC=#{RATE}
        (the default), following sampled objects (RPERF_ALLOC_FOLLOW=100000) or not (=0);
        window: RPERF_ALLOC=window (the hook in 10 ms windows about every second);
        stackprof: object mode, interval #{RATE}; vernier: allocation_interval #{RATE};
        vernier retained: trace_retained (every object). noop-hook: no profiler, a NEWOBJ hook that
        does nothing (what Ruby's allocation path costs with any object hook installed).

      TEXT
      table(runs)
      per_allocation(runs)
      instruction_counts
      window_instructions if Bench.which?("valgrind")
      puts "  memory, RPERF_ALLOC=16 on alloc.rb: #{verbose_line(16, "allocation sampling:")}"
      # What the agent's time sampling costs beside its allocation sampling
      # (stackprof's object mode takes no time samples): its worker thread.
      puts "  time sampling's own, RPERF_ALLOC=#{RATE} on alloc_app.rb 100000: " \
           "#{verbose_line(RATE, "agent threads:", %w[alloc_app.rb 100000])}"
      # The window mode's share of allocations through the hook: what its
      # timed cost, below this machine's noise, is made of.
      # (runs of some 3 s: a window about every second)
      [%w[alloc.rb 3000000], %w[alloc_app.rb 500000]].each do |w|
        puts "  window mode on #{w.join(" ")}: #{verbose_line("window", "windows saw", w)}"
      end
    end
  end

  command("alloc") { |runs = nil| Alloc.run(count(runs, 7, "RUNS")) }
end
