# frozen_string_literal: true

# extconf.rb — what `gem install rperf-agent` runs: checks that this
# machine can build the agent (one line naming what is missing and the
# package that has it), then writes the Makefile RubyGems runs, which
# builds the project with Meson against the Ruby running the install (the
# Ruby it will profile) and installs it into the gem's own vendor/ folder:
# vendor/bin/{rperf,rperf-analyze,rperf-attach}, vendor/lib/librperf-agent.so
# and its Ruby files in vendor/lib/rperf/ruby, the man pages in
# vendor/share/man (copied where `man` finds them, below). gem/bin/ runs those
# programs; `rperf preload-path` prints the agent's path.
require "rbconfig"
require "shellwords"

SOURCE = File.expand_path("../../..", __dir__)
PREFIX = File.join(SOURCE, "vendor")
BUILD = File.join(__dir__, "build")

# The programs the build runs, and the Debian/Ubuntu package of each.
PROGRAMS = { "meson" => "meson", "ninja" => "ninja-build", "cc" => "gcc", "pkg-config" => "pkg-config" }.freeze
# The libraries it links: pkg-config's name, what to call it, its package.
LIBRARIES = { "zlib" => %w[zlib zlib1g-dev], "libisal" => %w[ISA-L libisal-dev],
              "jansson" => %w[jansson libjansson-dev], "libbsd-overlay" => %w[libbsd libbsd-dev] }.freeze

def fail_with(message)
  warn "rperf-agent: cannot build: #{message}"
  exit 1
end

def on_path?(program)
  ENV.fetch("PATH", "").split(File::PATH_SEPARATOR).any? { |dir| File.executable?(File.join(dir, program)) }
end

fail_with("it runs on Linux only (this is #{RbConfig::CONFIG["host_os"]})") unless RbConfig::CONFIG["host_os"].include?("linux")
ruby = RbConfig.ruby
unless Gem::Version.new(RUBY_VERSION) >= Gem::Version.new("3.4")
  fail_with("Ruby #{RUBY_VERSION} (#{ruby}) is older than 3.4, the oldest the agent profiles")
end
unless RbConfig::CONFIG["ENABLE_SHARED"] == "yes"
  fail_with("Ruby #{RUBY_VERSION} (#{ruby}) is built without --enable-shared; build it with --enable-shared " \
            "(ruby-build, rbenv and the ruby Docker images do)")
end
unless File.exist?(File.join(RbConfig::CONFIG["rubyhdrdir"], "ruby.h"))
  fail_with("Ruby #{RUBY_VERSION}'s headers are not installed (#{RbConfig::CONFIG["rubyhdrdir"]}/ruby.h)")
end
missing = PROGRAMS.reject { |program, _| on_path?(program) }
missing_libs = on_path?("pkg-config") ? LIBRARIES.reject { |lib, _| system("pkg-config", "--exists", lib) } : LIBRARIES
unless missing.empty? && missing_libs.empty?
  what = missing.keys + missing_libs.values.map { |name, _| "#{name}'s development files" }
  packages = missing.values + missing_libs.values.map { |_, package| package }
  fail_with("missing #{what.join(", ")}; on Debian or Ubuntu: apt-get install #{packages.uniq.join(" ")}")
end

# Where `man` looks for the gem's commands: beside the bin directory the
# gem's executables go to (man-db searches <dir>/../share/man for each
# <dir> on PATH): /usr/local/share/man for a system gem, the Ruby's own
# share/man under rbenv or ruby-build, GEM_HOME/share/man otherwise. Not
# removed by `gem uninstall`; skipped when not writable.
gems_dir = File.dirname(SOURCE)
MANDIR = (File.join(Gem.bindir(File.dirname(gems_dir)), "..", "share", "man", "man1") if File.basename(gems_dir) == "gems")

setup = ["meson", "setup", BUILD, SOURCE, "--prefix=#{PREFIX}", "--libdir=lib", "--bindir=bin",
         "--mandir=share/man", "--buildtype=release", "-Dtests=false", "-Druby=#{ruby}"]
setup << "--reconfigure" if File.exist?(File.join(BUILD, "build.ninja"))

# A command line of the Makefile: quoted for the shell, then for make,
# which expands every "$" of a recipe before the shell sees it (a path
# holding "$x" or "$(shell ...)" would be changed, or run).
def recipe(*words) = Shellwords.join(words).gsub("$", "$$")

man_copy = MANDIR && "-mkdir -p #{recipe(MANDIR)} && cp #{recipe(PREFIX)}/share/man/man1/*.1 #{recipe(MANDIR)}/"
File.write("Makefile", <<~MAKE)
  # Written by extconf.rb (rperf-agent): the project built with Meson.
  all:
  \t#{recipe(*setup)}
  \t#{recipe("ninja", "-C", BUILD)}
  install: all
  \t#{recipe("meson", "install", "-C", BUILD, "--no-rebuild", "--quiet")}
  #{man_copy ? "\t#{man_copy}" : ""}
  clean:
  \t#{recipe("rm", "-rf", BUILD)}
  .PHONY: all install clean
MAKE
