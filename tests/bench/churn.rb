# tests/bench/churn.rb MINUTES [EVERY_S]: code loaded, run and dropped
# without end, as a template engine compiling each template under its own
# file name, or an app reloading its code: each round evals a method into
# a module of its own (anonymous: a named one's constant name would stay
# in Ruby's symbol table for good, growing the program itself) under
# "/app/views/generated/template_N.html.erb", calls it (a few
# allocations) and drops it. Prints "minutes rounds rss_kb hwm_kb"
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
  template = Module.new
  template.module_eval("def self.render(x) = (1..20).map { |j| \"\#{x}-\#{j}\" }.join(',')",
                       "/app/views/generated/template_#{rounds}.html.erb", 1)
  template.render(rounds)
  rounds += 1
  next unless now >= next_report
  report.call(started, rounds)
  next_report += every
end
report.call(started, rounds)
