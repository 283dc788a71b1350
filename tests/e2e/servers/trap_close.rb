# frozen_string_literal: true

# trap_close.rb [N] — the Ruby 3.4.5 bug tests/e2e/servers/puma_trap_safe.rb
# works around, without Puma and without the agent: a trap handler writes
# to a pipe a thread closes as soon as it is readable. Prints "ok N", or
# "hang at I" (exit 1) when a close waits more than 5 s.
$stdout.sync = true
n = Integer(ARGV[0] || 200)
n.times do |i|
  r, w = IO.pipe
  closer = Thread.new { IO.select([r]); w.close }
  Thread.pass until closer.status == "sleep"
  trap("USR1") { begin; w << "x"; rescue IOError, ThreadError; end }
  Process.kill(:USR1, $$)
  next if closer.join(5)

  puts "hang at #{i}"
  exit!(1)
end
puts "ok #{n}"
