# Rperf::Meta — the gem 0.11's profile metadata, for programs that use it
# directly: the commit of a working directory, the snapshot file name of
# `rperf record --snapshot-dir`, the meta and summary of a profile's data,
# and reading them from a file's head. The profiles this agent writes
# carry meta and summary already (profile/profile_write.c writes them, the
# rperf command collects the commit); what is here is their Ruby face.
#
# json is required when needed, not at load (see rperf/table.rb).
require "time"

module Rperf
  module Meta
    FORMAT_VERSION = 1
    TOP_METHODS_LIMIT = 50

    module_function

    # The commit checked out in `dir`: {sha:, branch:, subject:,
    # committed_at:, dirty:} (what git can tell), GitHub Actions'
    # GITHUB_SHA first; nil outside a repository or without git.
    def collect_git(dir = Dir.pwd)
      sha = ENV["GITHUB_SHA"]
      return github_commit(dir, sha) if sha&.match?(/\A\h{7,64}\z/)

      sha = git_capture(dir, "rev-parse", "HEAD")
      return nil if sha.nil? || sha.empty?

      git = { sha: sha }
      branch = git_capture(dir, "rev-parse", "--abbrev-ref", "HEAD")
      git[:branch] = branch unless branch.nil? || branch.empty? || branch == "HEAD"
      add_commit_facts(git, dir)
      status = git_capture(dir, "status", "--porcelain")
      git[:dirty] = !status.empty? unless status.nil?
      git
    end

    def github_commit(dir, sha)
      git = { sha: sha, dirty: false }
      branch = [ENV["GITHUB_HEAD_REF"], ENV["GITHUB_REF_NAME"]].find { _1 && !_1.empty? }
      git[:branch] = branch if branch
      add_commit_facts(git, dir, sha)
      git
    end

    def add_commit_facts(git, dir, *rev)
      subject = git_capture(dir, "log", "-1", "--format=%s", *rev)
      committed_at = git_capture(dir, "log", "-1", "--format=%cI", *rev)
      git[:subject] = subject unless subject.nil? || subject.empty?
      git[:committed_at] = committed_at unless committed_at.nil? || committed_at.empty?
    end

    # git's output in `dir`, stripped; nil when git fails or is missing.
    def git_capture(dir, *args)
      out = IO.popen(["git", "-C", dir.to_s, *args], err: File::NULL, &:read)
      $?.success? ? out.strip : nil
    rescue SystemCallError
      nil
    end

    # rperf-<sha7>-<UTC time>.json.gz, or rperf-nogit-<time>-<pid>.json.gz.
    def snapshot_filename(git, time: Time.now, pid: Process.pid)
      stamp = time.utc.strftime("%Y%m%dT%H%M%SZ")
      sha = git && (git[:sha] || git["sha"])
      sha ? "rperf-#{sha[0, 7]}-#{stamp}.json.gz" : "rperf-nogit-#{stamp}-#{pid}.json.gz"
    end

    # The meta of a profile about to be written from `data`.
    def build_meta(data)
      meta = { format_version: FORMAT_VERSION, created_at: Time.now.utc.iso8601, ruby_version: RUBY_VERSION,
               rperf_version: Rperf::VERSION, mode: (data[:mode] || :cpu).to_s }
      host = hostname
      meta[:hostname] = host if host
      git = git_from_env_or_collect
      meta[:git] = git if git
      labels = labels_from_env
      meta[:labels] = labels if labels && !labels.empty?
      meta
    end

    def hostname
      require "socket"
      Socket.gethostname
    rescue StandardError
      nil
    end

    # RPERF_META_GIT as the rperf command set it ("null": not a
    # repository), else the working directory's commit, looked up once.
    def git_from_env_or_collect
      if ENV.key?("RPERF_META_GIT")
        parsed(ENV["RPERF_META_GIT"], symbolize: true)
      else
        (@collected ||= [collect_git]).first
      end
    end

    def labels_from_env
      ENV.key?("RPERF_META_LABELS") ? parsed(ENV["RPERF_META_LABELS"], symbolize: false) : nil
    end

    def parsed(text, symbolize:)
      require "json"
      value = JSON.parse(text.to_s, symbolize_names: symbolize)
      value.is_a?(Hash) ? value : nil
    rescue JSON::ParserError
      nil
    end

    # The summary of `data` (a Hash of Rperf.stop or Rperf.load), as the
    # profile files carry it: written by the same C code
    # (profile/profile_write.c), so the two never differ.
    def build_summary(data)
      require "json"
      JSON.parse(Rperf._summary(data), symbolize_names: true)
    end

    # The methods of most self time, by name, with their shares.
    def top_methods(data, limit: TOP_METHODS_LIMIT) = build_summary(data)[:top_methods].first(limit)

    # {meta:, summary:} from the head of the file, or nil.
    def read(path) = Rperf.read_meta(path)
  end
end
