# tests/bench/driver/context.rb — what every benchmark stands on: the
# project's paths (its Ruby, the agent and the analyzer under test, the
# workloads), the scratch folder of one run of scripts/bench (removed at
# exit, with any server it left running), the workload extension, the
# agent's environment and reading the profiles it writes.
require "etc"
require "fileutils"
require "json"
require "rbconfig"
require "tmpdir"
require "zlib"

module Bench
  # A variable's value, or DEFAULT when it is unset or empty (as ${V:-D}).
  def self.env_or(name, default)
    value = ENV[name]
    value.nil? || value.empty? ? default : value
  end

  ROOT = File.expand_path("../../..", __dir__)
  SRC = File.join(ROOT, "tests/bench")
  # scripts/bench runs this driver on the project's Ruby: the one measured.
  RUBY = RbConfig.ruby
  # The build scripts/bench just made (its BUILD_DIR).
  BUILD = env_or("RPERF_BENCH_BUILD", File.join(ROOT, "build"))
  # RPERF_BENCH_AGENT: another build of the agent to measure (before/after).
  AGENT = env_or("RPERF_BENCH_AGENT", File.join(BUILD, "agent/librperf-agent.so"))
  ANALYZE = File.join(BUILD, "analyzer/rperf-analyze")
  CACHE = env_or("RPERF_CACHE", File.join(env_or("XDG_CACHE_HOME", File.join(Dir.home, ".cache")), "rperf"))
  WORK = Dir.mktmpdir("rperf-bench.", env_or("TMPDIR", "/tmp"))

  @background = []
  at_exit do
    @background.each { |pid| Process.kill(:TERM, pid) rescue nil }
    @background.each { |pid| Process.wait(pid) rescue nil }
    FileUtils.rm_rf(WORK)
  end

  def self.work(*names) = File.join(WORK, *names)
  def self.src(name) = File.join(SRC, name)

  # The overhead workloads (script and arguments), which several
  # benchmarks share: one thread of Ruby, threads, allocations, a deep
  # stack.
  WORKLOADS = [%w[cpu_bound.rb 34], %w[threads.rb], %w[alloc.rb 800000], %w[deep.rb 160 40000000]].freeze

  # The command that runs workload W unprofiled.
  def self.workload(w) = [RUBY, src(w[0]), *w[1..]]

  # A process that runs beside the benchmark (a server, a client): ended
  # at exit if it still runs, however the benchmark ends.
  def self.background(*cmd, **opts)
    pid = Process.spawn(*cmd, **opts)
    @background << pid
    pid
  end

  # Waits for a background process; true when it exited with 0.
  def self.wait_background(pid)
    @background.delete(pid)
    Process.wait(pid)
    $?.success?
  rescue Errno::ECHILD
    false
  end

  # The agent's environment for one run writing into SESSION (a folder of
  # the scratch folder), EXTRA added (RPERF_MODE, ...; nil unsets).
  def self.agent_env(session, **extra)
    { "LD_PRELOAD" => AGENT, "RPERF_QUIET" => "1", "RPERF_SESSION_DIR" => work(session) }
      .merge(extra.to_h { |k, v| [k.to_s, v&.to_s] })
  end

  def self.profiles(session) = Dir.glob(File.join(work(session), "profile-*.json.gz")).sort
  def self.read_profile(path) = JSON.parse(Zlib::GzipReader.open(path, &:read))

  # The one profile a run of one process wrote into SESSION, parsed.
  def self.profile_of(session)
    path = profiles(session).first or abort("bench: no profile in #{work(session)}")
    read_profile(path)
  end

  def self.forget(session) = FileUtils.rm_rf(work(session))

  # tests/bench/workload.c built against the project's Ruby, once: the C
  # methods of the accuracy scenarios, the sample floor, a no-op hook.
  def self.workload_so
    @workload_so ||= begin
      c = RbConfig::CONFIG
      out = work("workload.so")
      run!("cc", "-O2", "-shared", "-fPIC", "-I#{c["rubyhdrdir"]}", "-I#{c["rubyarchhdrdir"]}",
           "-L#{c["libdir"]}", "-Wl,-rpath,#{c["libdir"]}", src("workload.c"), "-o", out, "-lruby")
      out
    end
  end

  # A wrong argument: said on one line, exit status 2.
  def self.usage_error(message)
    warn message
    exit 2
  end

  # Whether PROGRAM is on the PATH.
  def self.which?(program)
    ENV.fetch("PATH", "").split(":").any? { File.executable?(File.join(_1, program)) }
  end

  # A whole-number argument of a subcommand, or its default.
  def self.count(arg, default, what)
    return default if arg.nil?
    n = Integer(arg, exception: false)
    usage_error("scripts/bench: #{what} must be a positive whole number, got '#{arg}'") unless n&.positive?
    n
  end
end
