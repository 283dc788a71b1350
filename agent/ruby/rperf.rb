# frozen_string_literal: true

# rperf.rb — the rperf gem's API, served by librperf-agent.so.
#
# A program running under the agent (LD_PRELOAD=librperf-agent.so ruby
# app.rb) finds this folder first on $LOAD_PATH, so `require "rperf"`
# loads this file, also where the rperf gem is installed. The native
# methods are the agent's extension (agent/ext/ in the rperf sources: the
# samples, the labels and every format, on the same code as rperf-analyze);
# this file is what the gem does around them in Ruby: checking options and
# wording errors as the gem does, following forked and spawned children
# into a session directory, and printing and writing at Rperf.stop.
#
#   Rperf.start(mode: :wall, frequency: 100, ...) / Rperf.stop  a session
#   Rperf.start(...) { ... }         the same around a block
#   Rperf.label(request: id) { ... } labels this thread's samples
#   Rperf.labels                     # => {request: "42"}
#   Rperf.profile(endpoint: "/users") { ... }  labels, and with defer: true
#                                    samples only inside such blocks
#   Rperf.snapshot(clear: false)     the session's data so far
#   Rperf.save(path, data, format:) / Rperf.load(path)
#   Rperf::PProf / Collapsed / Text.encode(data), Rperf.print_stat(data)
#
# Under the agent's whole-process profile (the default), a session runs
# inside it with its own options and both keep their own data; without a
# session the API acts on the whole-process profile. With RPERF_ENABLED=0
# the agent is dormant until Rperf.start, as the gem is.
#
# Middlewares and the viewer: require "rperf/rack", "rperf/sidekiq",
# "rperf/active_job", "rperf/viewer". Rperf::Table and Rperf::Meta
# (rperf/table.rb, rperf/meta.rb) are loaded with the API, as the gem
# loads them.

require_relative "rperf/version"
# What start needs to make a session directory, loaded now rather than
# inside the session, whose profile would show it.
require "securerandom"
require "tmpdir"
# The gem loads these at require, and programs written for it (its own
# tests among them) use StringIO and Zlib without requiring them.
require "stringio"
require "zlib"

begin
  require_relative "rperf/rperf_agent.so"
rescue LoadError => e
  raise unless e.message.start_with?("rperf: the agent is not loaded")
  # No agent in this process (a child that does not preload it, yet was
  # handed RUBYOPT=-rrperf): the API does what the gem does when it is not
  # started, and Rperf.start says why it cannot.
  require_relative "rperf/without_agent"
  return
end
require_relative "rperf/table"
require_relative "rperf/meta"

module Rperf
  # How many methods print_top lists per table (profile/encode/verbose.c's
  # VERBOSE_TOP).
  TOP_N = 10

  VM_STATE_LABELS = {
    1 => ["%GVL", "blocked"], 2 => ["%GVL", "wait"], 3 => ["%GC", "mark"], 4 => ["%GC", "sweep"],
  }.freeze

  # Settings a forked child's session begins again with, and what stop does.
  Session = Struct.new(:options, :output, :format, :stat, :verbose, :dir, :root_pid,
                       :child_output, :saved_env, :forked, keyword_init: true)
  private_constant :Session

  @session = nil
  @fork_hook = false

  class << self
    def start(frequency: 1000, mode: :cpu, output: nil, verbose: false, format: nil, stat: false,
              signal: nil, aggregate: true, defer: false, inherit: :fork, alloc: nil)
      check_frequency(frequency)
      alloc = alloc_rate(alloc)
      raise ArgumentError, "mode must be :cpu or :wall, got #{mode.inspect}" unless %i[cpu wall].include?(mode)
      raise ArgumentError, "inherit must be :fork, true, or false, got #{inherit.inspect}" unless [true, false, :fork].include?(inherit)
      check_signal(signal)
      _session_start(mode, frequency, aggregate, defer, alloc)
      @session = Session.new(
        options: {frequency: frequency, mode: mode, aggregate: aggregate, signal: signal, defer: defer,
                  alloc: alloc},
        output: output, format: format, stat: stat, verbose: verbose || ENV["RPERF_VERBOSE"] == "1",
      )
      @session.saved_env = SESSION_ENV.to_h { |k| [k, ENV[k]] }
      follow_children(inherit, defer) if inherit
      return unless block_given?

      begin
        yield
      ensure
        result = stop
      end
      result
    end

    # Rperf.request(name) { ... }: the block is one request or job of
    # endpoint `name` (rperf-analyze requests): its latency and how its
    # thread spent it; nested ones (in the same fiber) count once, at the
    # outermost; each fiber's are its own (fiber-per-request servers). The Rack,
    # Sidekiq and ActiveJob middlewares call it for every request and job.
    # queued_at: (a Time, or Unix time in seconds) when the request reached
    # the system or the job was enqueued: the request then starts there,
    # its wait until the block its queue time.
    def request(name, status: nil, queued_at: nil)
      raise ArgumentError, "Rperf.request requires a block" unless block_given?

      _request_begin(name, queued_at.is_a?(Time) ? queued_at.to_f : queued_at)
      begin
        yield
      ensure
        _request_end(status)
      end
    end

    # The job middlewares' (Sidekiq, ActiveJob) one job of `name`, queued
    # since `queued_at`, run in an Rperf.profile block labelled
    # `label_key => name`; its status is 200 when it returns, 500 when it
    # raises (to be retried, or dead), as rperf-analyze requests counts them.
    def _job(name, label_key, queued_at)
      _request_begin(name, queued_at.is_a?(Time) ? queued_at.to_f : queued_at)
      status = 500
      begin
        result = _profile_if_running(label_key => name) { yield }
        status = 200
        result
      ensure
        _request_end(status)
      end
    end

    def stop
      session = @session
      data = _session_stop
      return unless data

      @session = nil
      tell_where_children_went(session)
      merged = merge_children(session, data) if session && gathers_children?(session)
      report(session, merged || data) if session
      cleanup(session)
      merged || data
    end

    def save(path, data, format: nil)
      _save(path.to_s, _with_meta_texts(data, build: true), detect_format(path, format))
    end

    # A loaded profile's :meta (Rperf.load) handed to the native writer as
    # _meta, its git and labels as JSON text, so that the file written
    # keeps where the profile was made (`build`: for data that has none, as
    # Rperf.save makes it); and a :summary given with the data.
    def _with_meta_texts(data, build: false)
      return data unless data.is_a?(Hash)

      meta = data[:meta] || data["meta"]
      # data without meta (a session's): made now, as the gem's save does —
      # RPERF_META_GIT and RPERF_META_LABELS as they are, else the commit
      # of the working directory
      meta ||= Rperf::Meta.build_meta(data) if build && data.key?(:aggregated_samples)
      summary = data[:summary] || data["summary"]
      return data unless meta.is_a?(Hash) || summary.is_a?(Hash)

      require "json"
      texts = {}
      if meta.is_a?(Hash)
        %i[hostname created_at].each { |k| texts[k] = meta[k] || meta[k.to_s] }
        %i[git labels].each do |k|
          value = meta[k] || meta[k.to_s]
          texts[k] = JSON.generate(value) if value.is_a?(Hash)
        end
      end
      texts[:summary] = JSON.generate(summary) if summary.is_a?(Hash) # written as given, as the gem does
      data.merge(_meta: texts.compact)
    end

    # `data` (a String) gzip-compressed, as a binary String — what the gem
    # writes its .pb.gz and .json.gz with; zlib is loaded on first use,
    # not into every program the agent profiles.
    def gzip(data)
      require "zlib"
      Zlib.gzip(data.to_s).force_encoding(Encoding::BINARY)
    end

    # On stderr, what Rperf.start(verbose: true) prints at stop: the mode
    # and frequency, the sampling cost, the top methods by self and total
    # weight (the same code as verbose and rperf-analyze).
    def print_stats(data)
      $stderr.write(_verbose_text(data))
    end

    # The top methods of print_stats alone: TOP_N by self ("flat") and by
    # total ("cum") weight; nothing without samples.
    def print_top(data)
      text = _verbose_text(data)
      top = text.index("[Rperf] top ")
      $stderr.write(text[top..]) if top
    end

    # A table as print_top prints them, of the caller's own weights:
    # `table` maps [method, path] to a weight in ns, shares of total_weight.
    def print_top_table(kind, table, total_weight)
      top = table.max_by(TOP_N) { |_, weight| weight }
      $stderr.puts "[Rperf] top #{top.size} by #{kind}:"
      top.each do |(name, path), weight|
        share = total_weight.positive? ? weight * 100.0 / total_weight : 0.0
        where = path.empty? ? "" : " (#{path})"
        $stderr.puts format("[Rperf]   %8.1fms %5.1f%%  %s%s", weight / 1_000_000.0, share, name, where)
      end
    end

    def load(path)
      data, version = _load(path)
      if version.nil?
        $stderr.puts "rperf: warning: file has no version info (may be from an older rperf)"
      elsif version != VERSION
        $stderr.puts "rperf: warning: file was saved by rperf #{version} (current: #{VERSION})"
      end
      # the file's meta and summary, as the gem's Hash has them
      head = read_meta(path)
      data[:meta] = head[:meta] if head&.dig(:meta)
      data[:summary] = head[:summary] if head&.dig(:summary)
      data
    end

    # The file's meta and summary ({meta:, summary:}), read from its head
    # without its samples; nil for a file without them (written before
    # them) or one that cannot be read.
    def read_meta(path)
      meta, summary = _read_meta(path.to_s)
      return nil if meta.nil? && summary.nil?

      require "json"
      { meta: meta && JSON.parse(meta, symbolize_names: true),
        summary: summary && JSON.parse(summary, symbolize_names: true) }
    end

    def print_stat(data)
      $stderr.write(_stat_text(data, ENV["RPERF_STAT_REPORT"] == "1", ENV["RPERF_STAT_COMMAND"]))
    end

    # Called in both halves of a fork (Process._fork): in the child the
    # parent's session goes on (_restart_in_child), the parent notes that
    # it has children to gather at stop.
    def _forked(pid)
      if pid == 0
        _restart_in_child
      elsif @session
        @session.forked = true
      end
    end

    # Called in a fork child (Process._fork): the parent's session goes on
    # here, as its own profile in the session directory, labelled with
    # this process.
    def _restart_in_child
      parent = @session
      @session = nil
      return unless _session_forked? && parent&.dir
      return unless parent.root_pid.nil? ? preset_dir_ready?(parent.dir) : File.directory?(parent.dir)

      start(**parent.options, inherit: false)
      become_member(parent.dir, parent.root_pid)
    end

    private

    # alloc: one allocation in N sampled (Integer N >= 1), true for the
    # default rate, nil, false or 0 for none (0 in the agent's terms: a
    # session restarted in a fork child passes it back).
    def alloc_rate(alloc)
      return 0 if alloc.nil? || alloc == false || alloc == 0
      return ALLOC_DEFAULT if alloc == true
      raise ArgumentError, "alloc must be a positive integer (one allocation in N sampled), true or nil (got #{alloc.inspect})" unless alloc.is_a?(Integer) && alloc.positive? && alloc <= 100_000_000

      alloc
    end

    def check_frequency(frequency)
      raise ArgumentError, "frequency must be a positive integer (got #{frequency.inspect})" unless frequency.is_a?(Integer) && frequency > 0
      raise ArgumentError, "frequency must be <= 10000 (10KHz), got #{frequency}" if frequency > 10_000
    end

    # The gem's option, checked as the gem checks it. The agent's ticks
    # use no signal (a thread sleeping to deadlines), so any value ticks
    # the same way and the program's signals stay its own.
    def check_signal(signal)
      return if signal.nil? || signal == false
      raise ArgumentError, "signal must be nil, false, or an Integer, got #{signal.inspect}" unless signal.is_a?(Integer)
      if [Signal.list["KILL"], Signal.list["STOP"]].include?(signal)
        raise ArgumentError, "signal #{signal} (#{Signal.signame(signal)}) cannot be caught; use a different signal"
      end
    end

    FORMATS = %i[json pprof collapsed text html speedscope].freeze
    private_constant :FORMATS

    # As the gem reads an output's name: .collapsed, .txt, .json(.gz), else
    # pprof; a format it does not know is pprof too.
    def detect_format(path, format)
      return FORMATS.include?(format.to_sym) ? format.to_sym : :pprof if format
      case path.to_s
      when /\.collapsed\z/ then :collapsed
      when /\.txt\z/ then :text
      when /\.json(\.gz)?\z/ then :json
      else :pprof
      end
    end

    # --- children -------------------------------------------------------------

    # The session directory of the processes this one starts (forked, and
    # with inherit: true spawned). As the gem: $RPERF_SESSION_DIR when it is
    # set (a session of the gem's rperf command: the children write there,
    # this process does not gather them), else one made here, gathered at
    # stop. The whole-process profile's own directory is never taken for
    # it: a child's session there would count the child twice.
    def follow_children(inherit, defer)
      preset = ENV["RPERF_SESSION_DIR"]
      install_fork_hook
      if preset && !agent_session_dir?(preset)
        @session.dir = preset
        return
      end
      dir = make_session_dir or return
      @session.dir = dir
      @session.root_pid = Process.pid
      unless preset
        ENV["RPERF_ROOT_PROCESS"] = Process.pid.to_s
        ENV["RPERF_SESSION_DIR"] = dir
        ENV["RPERF_DEFER"] = "1" if defer
      end
      follow_spawned(dir) if inherit == true
    end

    # $RPERF_SESSION_DIR of a forked child, made when it is missing (by the
    # first child: nothing is made before a child has something to write):
    # without it the child wrote nothing, and its data was lost without a
    # word. When it cannot be made, the child says so.
    def preset_dir_ready?(dir)
      return true if File.directory?(dir)

      require "fileutils"
      FileUtils.mkdir_p(dir, mode: 0o700)
      true
    rescue SystemCallError => e
      warn "rperf: RPERF_SESSION_DIR=#{dir} cannot be made (#{e.message}): the profile of process #{Process.pid} " \
           "(forked from a session) is not written"
      false
    end

    def agent_session_dir?(dir)
      own = _agent_session_dir
      own && File.realpath(dir) == File.realpath(own)
    rescue SystemCallError
      false
    end

    # The variables a session sets for its children, put back at stop as
    # they were at start (the whole-process profile's children still need
    # its RPERF_SESSION_DIR).
    SESSION_ENV = %w[RPERF_SESSION_DIR RPERF_ROOT_PROCESS RPERF_DEFER].freeze
    private_constant :SESSION_ENV

    SPAWN_ENV = %w[RPERF_ENABLED RPERF_FREQUENCY RPERF_MODE RPERF_SIGNAL RPERF_AGGREGATE
                   RUBYLIB RUBYOPT _RPERF_SESSION _RPERF_API_SESSION].freeze
    private_constant :SPAWN_ENV

    # Spawned Ruby programs that preload the agent follow the session; RUBYOPT
    # loads this API in them as the gem's does. Put back at stop.
    def follow_spawned(dir)
      SPAWN_ENV.each { |k| @session.saved_env[k] = ENV[k] }
      ENV["RPERF_ENABLED"] = "1"
      ENV["RUBYLIB"] = [__dir__, ENV["RUBYLIB"]].compact.join(File::PATH_SEPARATOR)
      ENV["RUBYOPT"] = "-rrperf #{ENV["RUBYOPT"]}".strip
      if _agent_session_dir
        join_in_spawned(dir)
      else
        profile_spawned(dir)
      end
    end

    # A dormant agent: the children's whole-process profiles are the
    # session's (its options; _RPERF_SESSION makes them members of its
    # directory, child_env.h).
    def profile_spawned(dir)
      opts = @session.options
      ENV["RPERF_FREQUENCY"] = opts[:frequency].to_s
      ENV["RPERF_MODE"] = opts[:mode].to_s
      ENV["RPERF_SIGNAL"] = opts[:signal].nil? ? nil : opts[:signal].to_s
      ENV["RPERF_AGGREGATE"] = opts[:aggregate] ? nil : "0"
      ENV["RPERF_ALLOC"] = opts[:alloc].positive? ? opts[:alloc].to_s : nil
      ENV["_RPERF_SESSION"] = "#{Process.pid}:#{dir}"
    end

    # Under the whole-process profile the children keep theirs (in its
    # directory, with its options) and open a session of this one's options
    # as they load this file (_join_spawning_session), written into its
    # directory at exit.
    def join_in_spawned(dir)
      opts = @session.options
      ENV["_RPERF_API_SESSION"] = [Process.pid, opts[:mode], opts[:frequency], opts[:aggregate] ? 1 : 0,
                                   opts[:defer] ? 1 : 0, opts[:alloc], dir].join(":")
    end

    public

    # In a spawned child, as this file loads: the session of the program
    # that spawned it (join_in_spawned) goes on here until exit.
    def _join_spawning_session(value)
      root, mode, frequency, aggregate, defer, alloc, dir = value.split(":", 7)
      return if root.to_i == Process.pid || !dir || !File.directory?(dir)

      start(mode: mode.to_sym, frequency: frequency.to_i, aggregate: aggregate == "1", defer: defer == "1",
            inherit: false, alloc: alloc.to_i.positive? ? alloc.to_i : nil)
      install_fork_hook
      become_member(dir, root.to_i)
    rescue ArgumentError, SystemCallError
      nil
    end

    private

    # The session just opened here is a member of `dir`'s: written there at
    # exit, labelled with this process, gathered by the root.
    def become_member(dir, root_pid)
      @session.dir = dir
      @session.root_pid = root_pid
      @session.child_output = File.join(dir, "profile-#{Process.pid}-#{Process.clock_gettime(Process::CLOCK_REALTIME, :nanosecond)}.json.gz")
      label("%pid": Process.pid.to_s)
      at_exit { Rperf.stop }
    end

    def make_session_dir
      [ENV["RPERF_TMPDIR"], ENV["XDG_RUNTIME_DIR"], Dir.tmpdir].compact.each do |base|
        user_dir = File.join(base, "rperf-#{Process.uid}")
        begin
          Dir.mkdir(user_dir, 0o700) unless File.directory?(user_dir)
          st = File.lstat(user_dir)
          next unless st.directory? && st.owned? && (st.mode & 0o777) == 0o700
          dir = File.join(user_dir, "rperf-#{Process.pid}-#{SecureRandom.hex(4)}")
          Dir.mkdir(dir, 0o700)
          return dir
        rescue SystemCallError
          next
        end
      end
      nil
    end

    def install_fork_hook
      return if @fork_hook

      @fork_hook = true
      ::Process.singleton_class.prepend(Module.new do
        def _fork
          pid = super
          Rperf._forked(pid)
          pid
        end
      end)
    end

    # The root of a session that forked, or whose spawned children wrote
    # into its directory.
    def gathers_children?(session)
      session.dir && session.root_pid == Process.pid &&
        (session.forked || !Dir.glob(File.join(session.dir, "*.json.gz")).empty?)
    end

    # A session under $RPERF_SESSION_DIR (the rperf command's, as the gem
    # has it) leaves its forked children's profiles there, not in its own
    # result: said once, at stop, so that none is lost unseen.
    def tell_where_children_went(session)
      return unless session&.forked && session.dir && session.root_pid.nil?

      warn "rperf: this session's forked children write their profiles into #{session.dir} " \
           "(RPERF_SESSION_DIR); the result of Rperf.stop holds process #{Process.pid} alone"
    end

    def merge_children(session, data)
      merged = File.directory?(session.dir) ? _merge_dir(session.dir, data) : nil
      warn "rperf: warning: multi-process aggregation failed; writing root process data only" unless merged
      merged
    end

    # --- at stop --------------------------------------------------------------

    def report(session, data)
      $stderr.write(_verbose_text(data)) if session.verbose
      print_stat(data) if session.stat
      if session.child_output
        begin
          _save(session.child_output, data, :json)
        rescue SystemCallError
          # the root may have gone and taken the directory with it
        end
      elsif session.output
        save(session.output, data, format: session.format)
      end
    end

    def cleanup(session)
      session&.saved_env&.each { |k, v| v.nil? ? ENV.delete(k) : ENV[k] = v }
      return unless session&.dir && session.root_pid == Process.pid

      remove_session_dir(session.dir)
    end

    # Most sessions' directories stay empty: one rmdir, not a tree walk.
    def remove_session_dir(dir)
      Dir.rmdir(dir)
    rescue Errno::ENOENT
      nil
    rescue SystemCallError
      require "fileutils"
      FileUtils.rm_rf(dir)
    end
  end
end

# A spawned child of a session, under the whole-process profile.
Rperf._join_spawning_session(ENV["_RPERF_API_SESSION"]) if ENV["_RPERF_API_SESSION"]
