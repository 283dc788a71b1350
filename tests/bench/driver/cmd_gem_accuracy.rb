# tests/bench/driver/cmd_gem_accuracy.rb — `scripts/bench gem-accuracy
# CHECKOUT [FIRST-LAST]`: the rperf gem's own accuracy harness
# (benchmark/accuracy of a checkout of its sources, v0.9.0), its files
# unmodified, against this agent, the rperf gem 0.9.0, stackprof and
# vernier in one run: passed scenarios and average error per scenario
# file and mode.
module Bench
  module GemAccuracy
    FILES = %w[scenarios_rw.json scenarios_cw.json scenarios_mixed.json scenarios_csleep.json
               scenarios_cwait.json].freeze
    WHO = %w[agent gem stackprof vernier].freeze

    # A copy of CHECKOUT's benchmark/ for one profiler, its workload
    # extension built: its lib/ — what profrun.rb puts first on the load
    # path — is the agent's Ruby folder (the agent preloaded, dormant), the
    # gem's installed lib, or empty.
    def self.tree(checkout, who)
      tree = Bench.work("gem-accuracy-#{who}")
      return tree if File.directory?(tree)
      FileUtils.mkdir_p(tree)
      FileUtils.cp_r(File.join(checkout, "benchmark"), File.join(tree, "benchmark"))
      ext = File.join(tree, "benchmark/ext/rperf_workload")
      log = Bench.work("workload-build.log")
      built = File.open(log, "w") do |out|
        system(RUBY, "extconf.rb", chdir: ext, out: out, err: out) && system("make", chdir: ext, out: out, err: out)
      end
      abort("bench: the harness's workload extension does not build: #{File.readlines(log).last(3).join}") unless built
      FileUtils.cp(File.join(ext, "rperf_workload.so"), File.join(tree, "benchmark/lib"))
      case who
      when "agent" then File.symlink(File.join(BUILD, "agent/ruby"), File.join(tree, "lib"))
      when "gem" then File.symlink(Bench.peers.gem, File.join(tree, "lib"))
      else FileUtils.mkdir(File.join(tree, "lib"))
      end
      tree
    end

    # The profiler's name for the harness and the environment it runs in.
    def self.profiler(who)
      peers = Bench.peers
      case who
      when "agent" then ["rperf", { "LD_PRELOAD" => AGENT, "RPERF_ENABLED" => "0", "RPERF_QUIET" => "1" }]
      when "gem" then ["rperf", {}]
      else [who, { "RUBYLIB" => peers[who.to_sym], "GEM_PATH" => peers.gems }]
      end
    end

    # "PASSED/RUN avg-error%" of one scenario file, mode and range, or "-".
    def self.run_one(checkout, who, file, mode, range)
      name, env = profiler(who)
      base = { "GEM_HOME" => nil, "GEM_PATH" => nil, "RUBYOPT" => nil,
               "PATH" => "#{Bench.peers.bin}:#{File.dirname(RUBY)}:#{ENV.fetch("PATH", "")}" }
      out = Bench.capture(base.merge(env), RUBY, "check_accuracy.rb", "-P", name, "-f", file, "-m", mode, range,
                          chdir: File.join(tree(checkout, who), "benchmark/accuracy"), err: %i[child out])
      run = passed = error = nil
      out.each_line do |line|
        _, run, _, passed = line.split if line.start_with?("Scenarios:")
        error = line.split[3] if line.start_with?("Overall average error:")
      end
      run ? "#{passed}/#{run} #{error}" : "-"
    end

    def self.installed?(who) = who == "agent" || !Bench.peers[who.to_sym].nil?

    def self.run(checkout, range)
      unless File.file?(File.join(checkout, "benchmark/accuracy/check_accuracy.rb"))
        Bench.usage_error("bench: #{checkout} has no benchmark/accuracy/check_accuracy.rb (a checkout of the rperf gem's sources)")
      end
      Bench.usage_error("bench: the harness reads pprof files with go tool pprof (golang-go)") unless Bench.which?("go")
      Bench.peers
      puts "== the rperf gem's accuracy harness (#{checkout}), scenarios #{range} of each file:"
      puts "   passed/run and average error per profiler (20% tolerance, the harness's own)"
      row = "%-22s %-5s %-16s %-16s %-16s %-16s\n"
      printf(row, "scenarios", "mode", "this agent", "rperf gem 0.9.0", "stackprof 0.2.28", "vernier 1.12.0")
      FILES.each do |file|
        %w[cpu wall].each do |mode|
          cells = WHO.map { |who| installed?(who) ? run_one(checkout, who, file, mode, range) : "-" }
          printf(row, file, mode, *cells)
        end
      end
    end
  end

  command("gem-accuracy") do |checkout = nil, range = "0-4"|
    Bench.usage_error("usage: scripts/bench gem-accuracy CHECKOUT [FIRST-LAST]") unless checkout
    GemAccuracy.run(checkout, range)
  end
end
