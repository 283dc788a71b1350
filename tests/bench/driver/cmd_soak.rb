# tests/bench/driver/cmd_soak.rb — `scripts/bench soak [MINUTES]
# [STACK]`: what the agent promises a server — memory that stops growing,
# latency as without it, every request counted, parts written every
# interval with a short pause. A profiled and an unprofiled server run at
# the same time, so they share the machine's noise; each gets its own
# unprofiled client. STACK: rails (a Puma cluster of Rails + SQLite from
# the tests' gems, tests/gems.txt; the default when scripts/setup
# installed them) or line (tests/bench/soak_server.rb, the standard
# library only, with stack churn).
require "socket"

module Bench
  module Soak
    WORKERS = 3
    THREADS = 4
    REPLACE = 30 # seconds between two replacements of worker 0
    CLIENT_THREADS = 3
    RAILS_GEMS = %w[puma railties actionpack activerecord sqlite3].freeze

    # The gem folder of the tests' gems when Puma and the Rails of
    # servers/rails_app.ru are in it, or nil.
    def self.rails_gems
      dir = File.join(CACHE, "gems-#{RUBY_VERSION}")
      found = RAILS_GEMS.all? { |g| Dir.glob(File.join(dir, "specifications", "#{g}-[0-9]*.gemspec")).any? }
      found ? dir : nil
    end

    # A /proc figure of a process in kB (VmRSS from status, Pss from
    # smaps_rollup), 0 once it is gone.
    def self.kb(pid, field)
      file = field == "Pss" ? "/proc/#{pid}/smaps_rollup" : "/proc/#{pid}/status"
      File.read(file)[/^#{field}:\s+(\d+)/, 1].to_i
    rescue SystemCallError
      0
    end

    # The processes of one server as its pids file says: [[kind, slot,
    # pid]] ("master PID" has no slot).
    def self.processes(dir)
      File.readlines(File.join(dir, "pids")).map do |line|
        kind, *rest = line.split
        kind == "master" ? [kind, nil, rest[0].to_i] : [kind, rest[0].to_i, rest[1].to_i]
      end
    end

    # [all, long-lived worker, master] memory in MB of one server: Pss
    # summed over master and workers (forked pages shared, counted once),
    # the RSS of worker 1 (never replaced) and of the master.
    def self.memory(dir)
      procs = processes(dir)
      rss_of = ->(sel) { (pid = procs.find(&sel)&.last) ? kb(pid, "VmRSS") : 0 }
      all = procs.sum { kb(_1.last, "Pss") }
      [all, rss_of.(->(p) { p[0] == "worker" && p[1] == 1 }), rss_of.(->(p) { p[0] == "master" })].map { _1 / 1024.0 }
    end

    # "master PID" and "worker SLOT PID" of the Puma started in DIR, each
    # worker's slot read from its title ("puma: cluster worker N: ...").
    def self.puma_processes(dir)
      master = File.read(File.join(dir, "master")).split.last
      lines = ["master #{master}"]
      children = Dir.glob("/proc/#{master}/task/*/children").flat_map { File.read(_1).split rescue [] }
      children.each do |pid|
        title = File.read("/proc/#{pid}/cmdline").tr("\0", " ") rescue next
        lines << "worker #{$1} #{pid}" if title =~ /cluster worker (\d+):/
      end
      lines
    end

    # For Puma, DIR/pids as they are now (soak_server.rb keeps its own).
    def self.refresh_pids(stack, dir)
      return unless stack == "rails"
      tmp = File.join(dir, "pids.new")
      File.write(tmp, puma_processes(dir).map { "#{_1}\n" }.join)
      File.rename(tmp, File.join(dir, "pids"))
    end

    # One server in the background with ENV (the agent's, or none): writes
    # DIR/port and DIR/pids. A crashed worker is replaced by its master and
    # the server goes on: each Ruby's crash report lands in DIR/crashes.
    #   line:  tests/bench/soak_server.rb, which replaces worker 0 itself
    #   rails: Puma cluster, preload_app!, of tests/e2e/servers/rails_app.ru
    def self.start(stack, dir, gems, env)
      FileUtils.mkdir_p(File.join(dir, "crashes"))
      env = { "RUBY_CRASH_REPORT" => File.join(dir, "crashes/ruby-%p.txt") }.merge(env)
      if stack == "line"
        return Bench.background(env, RUBY, Bench.src("soak_server.rb"), dir, WORKERS.to_s, THREADS.to_s, REPLACE.to_s,
                                err: File.join(dir, "err"))
      end
      port = TCPServer.open("127.0.0.1", 0) { _1.addr[1] }
      FileUtils.cp(File.join(ROOT, "tests/e2e/servers/rails_app.ru"), File.join(dir, "config.ru"))
      puma_env = { "RUBYOPT" => nil, "GEM_HOME" => gems, "GEM_PATH" => gems,
                   "RUBYLIB" => "#{ROOT}/tests/e2e/servers:#{ROOT}/tests/e2e",
                   "DATABASE_URL" => "sqlite3:#{dir}/db.sqlite3" }.merge(env)
      pid = Bench.background(puma_env, RUBY, File.join(gems, "bin/puma"), "-w", WORKERS.to_s, "-t", "#{THREADS}:#{THREADS}",
                             "--preload", "-b", "tcp://127.0.0.1:#{port}", "config.ru",
                             chdir: dir, out: File.join(dir, "out"), err: File.join(dir, "err"))
      File.write(File.join(dir, "master"), "master #{pid}\n")
      600.times do
        break if system("curl", "-s", "-o", File::NULL, "http://127.0.0.1:#{port}/cpu")
        sleep 0.1
      end
      File.write(File.join(dir, "port"), port.to_s)
      refresh_pids(stack, dir)
      pid
    end

    # Every REPLACE seconds, SIGTERM to Puma's worker 0 of each DIR, as a
    # worker killer does; Puma forks anew.
    def self.replace_worker0(dirs)
      Thread.new do
        loop do
          sleep REPLACE
          dirs.each do |dir|
            worker0 = puma_processes(dir).find { _1.start_with?("worker 0 ") }
            Process.kill(:TERM, worker0.split.last.to_i) rescue nil if worker0
          end
        end
      end
    end

    def self.ready?(dir) = %w[pids port].all? { File.size?(File.join(dir, _1)) }

    def self.describe(stack, minutes, period)
      rate = 1000 / period
      if stack == "rails"
        puts <<~TEXT
          Soak: #{minutes} min of Rails 8 + SQLite (tests/e2e/servers/rails_app.ru) on a Puma cluster
          (#{WORKERS} workers x #{THREADS} threads, preload_app!), Rperf::RackMiddleware; worker 0
          replaced every #{REPLACE} s (SIGTERM, as a worker killer does). #{CLIENT_THREADS} client threads at
          #{rate} requests/s each per server: 60% a post by one of 300 slugs, 30% a search
          for a term never sent before, 5% a 50 ms sleep, 5% 20 ms of CPU.
        TEXT
      else
        puts <<~TEXT
          Soak: #{minutes} min of a loopback server, master + #{WORKERS} preforked workers x #{THREADS}
          threads, fresh code (a new stack) every 4th request, a request-id label each,
          worker 0 replaced every #{REPLACE} s; #{CLIENT_THREADS} client threads at #{rate} requests/s each per server.
        TEXT
      end
      puts "Profiled (1000 Hz, RPERF_INTERVAL=10) and unprofiled run at the same time."
      puts
    end

    # Memory of both servers every STEP seconds until SECONDS have passed.
    def self.memory_table(stack, prof, plain, seconds, step)
      puts "Memory (MB): all = Pss of master + workers; worker 1 (lives the whole run) and master"
      puts "RSS; the agent's share = profiled - unprofiled."
      printf("  %5s   %-20s   %-20s   %s\n", "", "profiled", "unprofiled", "agent's share")
      printf("  %5s   %6s %6s %6s   %6s %6s %6s   %6s %6s %6s\n", "time", *(%w[all worker master] * 3))
      (step..seconds).step(step) do |t|
        sleep step
        [prof, plain].each { refresh_pids(stack, _1) }
        p = memory(prof)
        u = memory(plain)
        printf("  %2d:%02d   %6.1f %6.1f %6.1f   %6.1f %6.1f %6.1f   %6.1f %6.1f %6.1f\n", t / 60, t % 60, *p, *u,
               *p.zip(u).map { _1 - _2 })
      end
    end

    def self.latency_table(prof, plain)
      puts
      puts "Request latency (ms), one request per connection:"
      printf("  %-11s %8s %6s %7s %7s %7s %7s %7s\n", "", "requests", "errors", "p50", "p90", "p99", "p99.9", "max")
      { "profiled" => prof, "unprofiled" => plain }.each do |name, dir|
        printf("  %-11s %8s %6s %7s %7s %7s %7s %7s\n", name, *File.read(File.join(dir, "latency")).split.first(7))
      end
      puts
    end

    # How many Ruby processes of each server crashed, and where the first
    # one did.
    def self.crashes(prof, plain)
      { "profiled" => prof, "unprofiled" => plain }.each do |name, dir|
        reports = Dir.glob(File.join(dir, "crashes/ruby-*")).sort
        puts "Ruby processes that crashed, #{name}: #{reports.size}"
        bug = reports.first && File.foreach(reports.first).find { _1.include?("[BUG]") }
        puts "  #{bug}" if bug
      end
    end

    WARNING = /cannot write|parts lost|too many stacks/

    # The parts written, the pause they cost, the agent's warnings and the
    # session's stat.
    def self.profiles(session, prof)
      puts
      files = Bench.profiles(session)
      sizes = files.map { File.size(_1) }.sort
      processes = files.map { File.basename(_1).split("-")[1] }.uniq.size
      if sizes.empty?
        puts "Profiles: none written"
      else
        printf("Profiles: %d files (parts) from %d processes, %.1f MB in all; per part: median %.0f KB, largest %.0f KB\n",
               sizes.size, processes, sizes.sum / 1048576.0, sizes[(sizes.size + 1) / 2 - 1] / 1024.0, sizes.last / 1024.0)
      end
      err = File.readlines(File.join(prof, "err"))
      pauses(err)
      warnings = err.grep(WARNING)
      puts "Agent warnings (write failures, lost parts, stack cap): #{warnings.size}"
      warnings.tally.sort.first(5).each { |line, n| printf("  %7d %s", n, line) }
      Bench.capture(ANALYZE, "stat", Bench.work(session)).lines.first(12).each { print "  #{_1}" }
    end

    # RPERF_VERBOSE's line of each process that wrote parts: "... mean M
    # ms (C ms of its CPU time), longest L ms".
    def self.pauses(err)
      pattern = /the pause a part cost a Ruby thread: mean ([0-9.]+) ms \(([0-9.]+) ms of its CPU time\), longest ([0-9.]+) ms/
      rows = err.filter_map { _1.match(pattern)&.captures&.map(&:to_f) }.select { _1[0] > 0 }.sort
      return if rows.empty?
      printf("Pause a part cost a Ruby thread (%d processes): mean %.2f .. %.2f ms per process (CPU time %.2f ms on average), longest %.2f ms\n",
             rows.size, rows.first[0], rows.last[0], rows.sum { _1[1] } / rows.size, rows.map(&:last).max)
    end

    # The requests rperf-analyze counts against those the client had
    # answered (a request cut by a worker's replacement counts on neither
    # side, or on the agent's alone).
    def self.counted(session, latency)
      puts
      puts "Requests the agent counted, by route (the client had #{File.read(latency).split.first} answered):"
      Bench.capture(ANALYZE, "requests", Bench.work(session)).lines.first(8).each { print "  #{_1}" }
    end

    def self.run(minutes, stack)
      seconds = minutes * 60
      step = minutes > 5 ? 60 : 10
      gems = rails_gems
      stack ||= gems ? "rails" : "line"
      unless %w[rails line].include?(stack)
        Bench.usage_error("scripts/bench soak: STACK must be rails or line, got '#{stack}'")
      end
      if stack == "rails" && !gems
        Bench.usage_error("scripts/bench soak rails: Puma and Rails are not in #{CACHE}/gems-* (scripts/setup installs them)")
      end
      plain = Bench.work("soak-plain")
      prof = Bench.work("soak-profiled")
      servers = [start(stack, plain, gems, {}),
                 start(stack, prof, gems, Bench.agent_env("soak-session", RPERF_FREQUENCY: 1000, RPERF_INTERVAL: 10,
                                                                          RPERF_VERBOSE: 1, RPERF_QUIET: nil))]
      sleep 0.1 until ready?(plain) && ready?(prof)
      period = stack == "rails" ? 40 : 5
      clients = [plain, prof].map do |dir|
        Bench.background(RUBY, Bench.src("soak_client.rb"), File.read(File.join(dir, "port")), seconds.to_s,
                         CLIENT_THREADS.to_s, period.to_s, stack, out: File.join(dir, "latency"))
      end
      replacer = replace_worker0([plain, prof]) if stack == "rails"
      describe(stack, minutes, period)
      memory_table(stack, prof, plain, seconds, step)
      clients.each { Bench.wait_background(_1) }
      replacer&.kill
      [plain, prof].each { |dir| Process.kill(:TERM, processes(dir).find { _1[0] == "master" }.last) rescue nil }
      servers.each { Bench.wait_background(_1) }
      latency_table(prof, plain)
      crashes(prof, plain)
      profiles("soak-session", prof)
      counted("soak-session", File.join(prof, "latency")) if stack == "rails"
    end
  end

  command("soak") { |minutes = nil, stack = nil| Soak.run(count(minutes, 2, "MINUTES"), stack) }
end
