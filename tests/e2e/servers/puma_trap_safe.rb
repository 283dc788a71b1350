# frozen_string_literal: true

# puma_trap_safe.rb — keeps a Ruby 3.4.5 bug out of the real-server tests'
# shutdowns, with and without the agent alike.
#
# Ruby 3.4.5's IO#close waits for every thread blocked on the descriptor;
# a thread that wrote to it from a trap handler wakes the closer through a
# Mutex, which raises "can't be called from trap context", and the closer
# waits for ever (fixed upstream by ruby/ruby#13684, after 3.4.5). Puma's
# SIGTERM handler writes its stop command into a pipe its server thread
# closes right after reading it: now and then a worker never exits (4 runs
# in 40 of a plain `puma -w 2 --preload` here; tests/e2e/servers/
# trap_close.rb shows it without Puma). Writing the command from a thread
# of its own keeps the write out of trap context.
require "puma/server"

module PumaTrapSafe
  private

  def notify_safely(message)
    Thread.new { super }.join
  end
end
Puma::Server.prepend(PumaTrapSafe)
