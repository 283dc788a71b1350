# rperf-agent.gemspec — this project as a gem: `gem build rperf-agent.gemspec`
# in the checkout, then `gem install rperf-agent-VERSION.gem` (or a
# Gemfile line) builds the agent, rperf-attach, rperf and rperf-analyze
# against the Ruby running the install — the Ruby it will profile — with
# Meson (gem/ext/rperf-agent/extconf.rb), and puts `rperf` and
# `rperf-analyze` on the gem's bin path. Its own name: the gem `rperf`
# stays the rperf gem's.
version = File.read(File.join(__dir__, "meson.build"))[/^\s*version:\s*'([^']+)'/, 1] or
          abort "rperf-agent.gemspec: no version: '...' in meson.build"

Gem::Specification.new do |s|
  s.name = "rperf-agent"
  s.version = version
  s.summary = "A sampling profiler for CRuby preloaded into an unmodified ruby (a C reimplementation of rperf)"
  s.description = <<~TEXT
    librperf-agent.so, preloaded into an unmodified ruby, samples the Ruby call stack at
    safepoints, weights each sample by the time since the previous one, tracks GVL and GC
    time, follows forked and spawned children and writes one .json.gz profile per process;
    rperf records, attaches and reports, rperf-analyze merges and renders (stat, text, pprof,
    collapsed, speedscope, an HTML viewer, diffs). Serves the rperf gem's Ruby API.
  TEXT
  s.license = "MIT"
  s.authors = ["rperf-in-C developers"]
  s.homepage = "https://github.com/ko1/rperf"
  s.required_ruby_version = ">= 3.4"
  s.platform = Gem::Platform::RUBY
  # The sources Meson builds from, and the manual; not the tests.
  s.files = Dir.chdir(__dir__) do
    Dir.glob(%w[meson.build meson_options.txt LICENSE README.md rperf-agent.gemspec
                {agent,analyzer,attach,common,profile,rperf}/**/* gem/**/* docs/**/* examples/**/*],
             File::FNM_DOTMATCH)
       .reject { |f| File.directory?(f) || f.include?("/node_modules/") || f.end_with?(".png") }
  end
  s.bindir = "gem/bin"
  s.executables = %w[rperf rperf-analyze]
  s.require_paths = ["gem/lib"]
  s.extensions = ["gem/ext/rperf-agent/extconf.rb"]
end
