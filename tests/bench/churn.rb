# tests/bench/churn.rb MINUTES [EVERY_S]: code loaded, run and dropped
# without end, as a template engine compiling each template under its own
# file name, or an app reloading its code: each round evals a module of
# its own under "/app/views/generated/template_N.html.erb", calls it (a
# few allocations) and removes it. Prints "minutes rounds rss_kb hwm_kb"
# every EVERY_S seconds (default 60) and at the end.
minutes = Float(ARGV[0])
every = Float(ARGV[1] || 60)
clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
status = -> { File.read("/proc/self/status") }
report = lambda do |started, rounds|
  s = status.call
  printf("%.1f %d %s %s\n", (clock.call - started) / 60, rounds, s[/VmRSS:\s*(\d+)/, 1], s[/VmHWM:\s*(\d+)/, 1])
  $stdout.flush
end
started = clock.call
deadline = started + minutes * 60
next_report = started + every
rounds = 0
while (now = clock.call) < deadline
  name = :"Template#{rounds}"
  eval("module #{name}; def self.render(x) = (1..20).map { |j| \"\#{x}-\#{j}\" }.join(','); end",
       nil, "/app/views/generated/template_#{rounds}.html.erb", 1)
  Object.const_get(name).render(rounds)
  Object.send(:remove_const, name)
  rounds += 1
  next unless now >= next_report
  report.call(started, rounds)
  next_report += every
end
report.call(started, rounds)
