# tests/bench/driver/cmd_long.rb — `scripts/bench long [MINUTES]`: a long,
# varied recording end to end. tests/bench/walk.rb (a random walk over 600
# methods, 25-35 deep: nearly every sample a new stack) runs MINUTES of
# CPU time under the agent at 10 kHz — the samples of ten times as many
# minutes at the default 1 kHz — so its stack table fills again and
# again: the parts it wrote, the time that went to "[truncated: ...]"
# (none is expected), the profile's total against the thread's CPU time,
# peak memory beside the unprofiled program's. Then rperf-analyze on that
# session against zcat of its files in the same run, and the viewer page:
# its first draw and what a person does on it (tests/browser).
module Bench
  module Long
    # The budgets the figures are read against (issue 53): every command
    # at zcat's speed or better on the same files, the page drawn in
    # under 2 s, each interaction painted in under 200 ms.
    ZCAT_BUDGET = 1.0
    FIRST_DRAW_BUDGET_MS = 2000
    INTERACTION_BUDGET_MS = 200

    def self.ms_of(text, pattern) = text[pattern, 1]&.delete(",")&.to_f

    def self.verdict(within) = within ? "within budget" : "OVER BUDGET"

    # The recording: [session, thread CPU s, peak RSS KB, verbose text].
    def self.record(minutes)
      session = Bench.work("long-session")
      env = Bench.agent_env("long-session", RPERF_FREQUENCY: 10_000, RPERF_VERBOSE: 1, RPERF_QUIET: nil)
      Bench.run!(env, "/usr/bin/time", "-f", "%M", "-o", Bench.work("long-time.txt"), RUBY, Bench.src("walk.rb"), (minutes * 60).to_s,
           err: Bench.work("long-err.txt"))
      err = File.read(Bench.work("long-err.txt"))
      cpu = err[/walks \d+ cpu ([\d.]+)/, 1].to_f
      [session, cpu, File.read(Bench.work("long-time.txt")).to_i, err]
    end

    def self.unprofiled_rss
      Bench.run!("/usr/bin/time", "-f", "%M", "-o", Bench.work("long-time.txt"), RUBY, Bench.src("walk.rb"), "20", err: File::NULL)
      File.read(Bench.work("long-time.txt")).to_i
    end

    def self.report_recording(minutes, session, cpu, kb, err)
      files = Dir.glob(File.join(session, "*.json.gz"))
      report = Bench.capture(ANALYZE, "report", "--top", "5", session)
      total = ms_of(report, /^Total: ([\d,.]+)ms/)
      truncated = ms_of(report, /([\d,.]+) ms +[\d.]+% +\[truncated/) || 0.0
      stat = Bench.capture(ANALYZE, "stat", session)
      sampling = stat[/sampling ([\d.]+)%/, 1]
      puts "Long recording: tests/bench/walk.rb, #{minutes} min of CPU at 10 kHz (the samples of #{minutes * 10} min at 1 kHz)"
      puts "  #{err[/rperf: (\d+ parts written: [^;]*)/, 1] || "1 profile, no part"}"
      printf("  %d files, %.1f MB compressed; [truncated: too many stacks]: %.1f ms\n", files.size,
             files.sum { File.size(_1) } / 1e6, truncated)
      printf("  profile total %.1f s against the thread's CPU %.1f s (%.2f%%; sampling itself %s%% of the run is " \
             "left out of the weights)\n", total / 1000, cpu, total / 10 / cpu, sampling)
      printf("  peak RSS %.1f MB profiled, %.1f MB unprofiled (20 s)\n", kb / 1024.0, unprofiled_rss / 1024.0)
      files
    end

    # The parts in two halves, for diff: earlier and later stretches of
    # the same program.
    def self.halves(files)
      sorted = files.sort_by { File.basename(_1)[/-(\d+)\.json\.gz\z/, 1].to_i }
      half = [sorted.size / 2, 1].max
      [sorted.first(half), sorted.drop(half)].each_with_index.map do |part, i|
        dir = Bench.work("long-half-#{i}")
        FileUtils.mkdir_p(dir)
        part.each { FileUtils.ln_s(_1, File.join(dir, File.basename(_1)), force: true) }
        dir
      end
    end

    def self.analyze(session, files)
      bytes = files.sum { Analyzer.inflated_size(_1) }
      puts "rperf-analyze on it: #{format("%.0f", bytes / 1e6)} MB of JSON, best of 3 runs, against zcat of the same " \
           "files (budget: #{ZCAT_BUDGET}x zcat or less):"
      floor, = Bench.best_of(3, "sh", "-c", 'for f; do zcat "$f"; done >/dev/null', "sh", *files)
      printf("  %-42s %6.2f s  %7.1f MB/s\n", "zcat (the floor)", floor, bytes / 1e6 / floor)
      early, late = halves(files)
      over = []
      [["stat"], ["report"], ["convert", "--pprof", "-o", "long.pb.gz"], ["convert", "--json", "-o", "long.json.gz"],
       ["convert", "--collapsed"], ["convert", "--speedscope", "-o", "long.speedscope.json"],
       ["convert", "--html", "-o", "long.html"]].each do |what|
        args = what.map { _1.start_with?("long.") ? Bench.work(_1) : _1 }
        secs, kb = Bench.best_of(3, ANALYZE, *args, session)
        Analyzer.row(what.take_while { _1 != "-o" }.join(" "), secs, bytes, kb, floor)
        over << what.join(" ") if secs / floor > ZCAT_BUDGET
      end
      secs, kb = Bench.best_of(3, ANALYZE, "diff", early, late)
      Analyzer.row("diff (first half, second half)", secs, bytes, kb, floor)
      over << "diff" if secs / floor > ZCAT_BUDGET
      puts "  #{verdict(over.empty?)}#{": #{over.join(", ")}" unless over.empty?}"
      Bench.work("long.html")
    end

    def self.interactions(page)
      browser = File.join(ROOT, "tests/browser")
      return unless File.directory?(File.join(browser, "node_modules/puppeteer-core"))

      list = Bench.capture("node", "interactions.js", page, "3", chdir: browser).lines.map(&:split)
      puts "  viewer interactions (action to the next frame painted, best of 3; budget " \
           "#{INTERACTION_BUDGET_MS} ms each): " + list.map { |name, ms| "#{name.tr("_", " ")} #{ms} ms" }.join(", ")
      puts "  #{verdict(list.all? { |_, ms| ms.to_i < INTERACTION_BUDGET_MS })}"
    end
  end

  command("long") do |minutes = nil|
    minutes = count(minutes, 6, "MINUTES")
    session, cpu, kb, err = Long.record(minutes)
    files = Long.report_recording(minutes, session, cpu, kb, err)
    page = Long.analyze(session, files)
    Analyzer.first_draw(page)
    puts "  (first draw budget: under #{Long::FIRST_DRAW_BUDGET_MS} ms)"
    Long.interactions(page)
  end
end
