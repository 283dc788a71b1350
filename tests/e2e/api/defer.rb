# tests/e2e/api/defer.rb — RPERF_DEFER=1: sampling only inside
# Rperf.profile blocks (api_defer.sh checks the profile). While no block
# is open the timer does not tick: the trigger count stays put.
require "rperf"
require "cpu_burn"

def outside = burn_cpu(0.30)
def inside_a = burn_cpu(0.30)
def inside_nested = burn_cpu(0.30) # long enough for a loaded machine's coarse ticks
def other_thread = burn_cpu(0.15)

triggers = -> { Rperf.snapshot[:trigger_count] }
before = triggers.call
outside
paused = triggers.call - before
raise "#{paused} triggers while paused" unless paused == 0

Rperf.profile(endpoint: "/a") do
  inside_a
  Rperf.profile(endpoint: "/a/nested") { inside_nested }
  # still inside the outer block: sampling goes on
  inside_a
end
after_block = triggers.call
outside
raise "triggers grew after the last block closed" unless triggers.call == after_block

# A block open in one thread samples the whole process (as the gem does),
# and the other thread's time before the block is not charged.
t = Thread.new { Rperf.profile(endpoint: "/t") { other_thread } }
t.join
begin
  Rperf.profile
rescue ArgumentError => e
  raise "wrong message: #{e.message}" unless e.message.include?("requires a block")
end
puts "defer.rb ok #{after_block}"
