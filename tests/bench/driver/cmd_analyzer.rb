# tests/bench/driver/cmd_analyzer.rb — `scripts/bench analyzer [MB]
# [lines]`: rperf-analyze on a generated session of 16 processes against
# zcat of its files in the same run (the floor), the inflaters Debian
# packages, reading the session back from pprof, and the viewer page's
# first draw in Chromium. RPERF_BENCH_ANALYZE=PATH measures another
# build of the analyzer beside this one.
module Bench
  module Analyzer
    COMMANDS = [%w[stat], ["convert", "--pprof", "-o", "out.pb.gz"], ["convert", "--collapsed", "-o", "out.collapsed"],
                ["convert", "--html", "-o", "out.html"]].freeze

    # Uncompressed bytes of a gzip file, as zcat reads it.
    def self.inflated_size(path)
      IO.popen(["zcat", path]) do |io|
        n = 0
        while (chunk = io.read(1 << 20))
          n += chunk.bytesize
        end
        n
      end
    end

    def self.row(label, secs, bytes, kb, floor)
      printf("  %-42s %6.2f s  %7.1f MB/s  %4.2fx zcat  peak RSS %5.0f MB\n", label, secs, bytes / 1e6 / secs,
             secs / floor, kb / 1024)
    end

    def self.analyzers
      list = [[ANALYZE, ""]]
      other = ENV["RPERF_BENCH_ANALYZE"]
      list << [other, " (RPERF_BENCH_ANALYZE)"] unless other.nil? || other.empty?
      list
    end

    def self.run(mb, lines)
      session = Bench.work("analyzer-session")
      Bench.run!(RUBY, Bench.src("gen_session.rb"), session, "16", mb.to_s, lines.to_s)
      files = Dir.glob(File.join(session, "*.json.gz")).sort
      bytes = files.sum { inflated_size(_1) }
      compressed = Bench.capture("du", "-sh", session).split.first
      puts "Analyzer: a generated session of 16 processes#{" with lines" if lines}, #{format("%.0f", bytes / 1e6)} MB"
      puts "of uncompressed JSON (#{compressed} compressed), best of 3 runs, on #{Etc.nprocessors} cores,"
      puts "against zcat of the same files (one after the other, single-threaded) in the same run."
      floor, = Bench.best_of(3, "sh", "-c", 'for f; do zcat "$f"; done >/dev/null', "sh", *files)
      printf("  %-42s %6.2f s  %7.1f MB/s\n", "zcat (the floor)", floor, bytes / 1e6 / floor)
      COMMANDS.each do |what|
        args = what.map { _1.start_with?("out.") ? Bench.work(_1) : _1 }
        analyzers.each do |analyze, which|
          secs, kb = Bench.best_of(3, analyze, *args, session)
          row(what.take_while { _1 != "-o" }.join(" ") + which, secs, bytes, kb, floor)
        end
      end
      inflaters(files)
      pprof_read(Bench.work("out.pb.gz"))
      first_draw(Bench.work("out.html"))
    end

    # The inflaters Debian packages, on the session's files
    # (tests/bench/inflate.c).
    def self.inflaters(files)
      program = Bench.work("inflate")
      err, ok = Bench.capture_err("cc", "-O2", Bench.src("inflate.c"), "-o", program, "-lz", "-ldeflate", "-lisal")
      unless ok
        puts "  inflaters: not measured (#{err.lines.first&.chomp}; scripts/setup installs libdeflate-dev and libisal-dev)"
        return
      end
      puts "  inflaters alone (best of 3, one thread; the analyzer reads with ISA-L, streamed):"
      Bench.capture(program, "3", *files).each_line { print "    #{_1}" }
    end

    # Reading the session back from the pprof file convert wrote (every
    # command reads pprof input).
    def self.pprof_read(file)
      secs, kb = Bench.best_of(3, ANALYZE, "stat", file)
      printf("  stat of its pprof    %6.2f s  (%.1f MB gzip, %.1f MB protobuf)  peak RSS %5.0f MB\n", secs,
             File.size(file) / 1e6, inflated_size(file) / 1e6, kb / 1024)
    end

    # The page's size, and how long Chromium takes to show its first flame
    # graph (tests/browser/first_draw.js, best of 3).
    def self.first_draw(page)
      note = File.read(page)[/<p id="folded-note">([^<]*)/, 1]&.sub(/ are folded.*/, " folded") || "nothing folded"
      printf("  viewer page          %6.1f MB (%s)\n", File.size(page) / 1e6, note)
      browser = File.join(ROOT, "tests/browser")
      unless File.executable?("/usr/bin/chromium") && File.directory?(File.join(browser, "node_modules/puppeteer-core"))
        puts "  viewer first draw: not measured (chromium or puppeteer-core missing; scripts/setup installs them)"
        return
      end
      total, script = Bench.capture("node", "first_draw.js", page, "3", chdir: browser).split
      return unless total
      puts "  viewer first draw    #{total} ms from navigation in headless Chromium (#{script} ms of it in the page's script), best of 3"
    end
  end

  command("analyzer") do |mb = nil, lines = nil|
    abort("scripts/bench analyzer: the second argument may only be 'lines', got '#{lines}'") if lines && lines != "lines"
    Analyzer.run(count(mb, 300, "MB"), lines)
  end
end
