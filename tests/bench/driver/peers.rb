# tests/bench/driver/peers.rb — the other profilers the benchmarks put
# beside this agent: the rperf gem, stackprof and vernier, installed from
# RubyGems with the project's Ruby into the benchmarks' own folder of the
# cache (never the machine's gems, nor its settings), once; and the
# columns of a side-by-side run (peers, sample), run in rounds.
module Bench
  PEER_VERSIONS = { "stackprof" => "0.2.28", "vernier" => "1.12.0", "rperf" => "0.9.0" }.freeze

  # The installed peers: their lib folders (nil when missing), the gem
  # folder and its bin. RPERF_BENCH_STACKPROF / _VERNIER / _GEM, when
  # set, name other lib folders. Without RubyGems the peers' columns say
  # "-".
  Peers = Struct.new(:stackprof, :vernier, :gem, :gems, :bin)

  def self.peers
    @peers ||= begin
      dir = File.join(CACHE, "bench-gems-#{RUBY_VERSION}")
      PEER_VERSIONS.each { |name, version| install_peer(dir, name, version) }
      lib = ->(name, marker = nil) do
        path = File.join(dir, "gems", "#{name}-#{PEER_VERSIONS.fetch(name)}", "lib")
        File.exist?(marker ? File.join(path, marker) : path) ? path : nil
      end
      Peers.new(env_or("RPERF_BENCH_STACKPROF", lib.("stackprof")),
                env_or("RPERF_BENCH_VERNIER", lib.("vernier")),
                env_or("RPERF_BENCH_GEM", lib.("rperf", "rperf.so")),
                dir, File.join(dir, "bin"))
    end
  end

  def self.install_peer(dir, name, version)
    return if File.directory?(File.join(dir, "gems", "#{name}-#{version}", "lib"))
    clean = { "GEM_HOME" => dir, "GEM_PATH" => dir, "GEMRC" => File::NULL, "RUBYOPT" => nil, "RUBYLIB" => nil }
    gem = File.join(File.dirname(RUBY), "gem")
    return if system(clean, gem, "install", "--no-document", "--install-dir", dir, name, "-v", version,
                     out: File::NULL, err: File::NULL)
    warn "bench: #{name} #{version} could not be installed from RubyGems"
  end

  PEER_NAMES = %w[plain agent rperf-gem stackprof vernier].freeze

  # The command prefix of one column of a side-by-side run at 1000 Hz, or
  # nil when that peer is not installed.
  def self.peer_command(name)
    peer = ->(lib, as) { lib && [RUBY, "-I", lib, src("peer_run.rb"), as, "1000"] }
    case name
    when "plain" then [RUBY]
    when "agent" then [agent_env("peers-session", RPERF_MODE: "cpu", RPERF_FREQUENCY: 1000), RUBY]
    when "rperf-gem" then peer.(peers.gem, "rperf-gem")
    when "stackprof" then peer.(peers.stackprof, "stackprof")
    when "vernier" then peer.(peers.vernier, "vernier")
    end
  end

  # RUNS rounds, each running every installed column once, in an order
  # that rotates round by round (so that a machine getting faster or
  # slower favours none); yields (round, name, command prefix) and
  # returns { name => { round => what the block returned } }.
  def self.peer_rounds(runs)
    results = PEER_NAMES.to_h { |name| [name, {}] }
    (1..runs).each do |round|
      PEER_NAMES.size.times do |i|
        name = PEER_NAMES[(i + round) % PEER_NAMES.size]
        cmd = peer_command(name) or next
        results[name][round] = yield(round, name, cmd)
      end
    end
    results
  end
end
