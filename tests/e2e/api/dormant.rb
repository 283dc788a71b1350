# tests/e2e/api/dormant.rb — the agent dormant (RPERF_ENABLED=0) until the
# program starts a session, then sessions as the rperf gem 0.9 has them:
# nothing runs before Rperf.start (no sampling thread, no data), a session
# gets exactly its own options, labels begin empty and are gone after
# stop, the calls outside a session behave as the gem's when it is not
# started. api_dormant.sh checks that nothing was written.
require "rperf"
require "cpu_burn"
require_relative "check"

# The agent's threads (the worker and the ticker), by the names they are
# given (a thread gone between the listing and the read is not one).
def worker_threads = Dir.glob("/proc/self/task/*/comm").count { |f| (File.read(f) rescue "").start_with?("rperf-") }
# After a stop: a thread that has been joined stays listed in /proc for a
# moment while the kernel finishes its exit (long enough to be seen on a
# loaded machine), so a count that is not 0 is looked at again for a while.
def worker_threads_after_stop
  50.times do
    n = worker_threads
    return n if n.zero?
    sleep 0.02
  end
  worker_threads
end
def ms(samples) = samples.sum { |_, w| w } / 1e6
def near(got, truth) = got.between?(truth * 0.85, truth * 1.15)

check("no sampling thread before start", worker_threads, 0)
check("running? before start", Rperf.running?, false)
check("snapshot before start", Rperf.snapshot, nil)
check("stop before start", Rperf.stop, nil)
check("labels before start", Rperf.labels, {})
check("label without a session runs its block", Rperf.label(a: "1") { :ran }, :ran)
begin
  Rperf.profile { :ran }
  raise "profile outside a session did not raise"
rescue RuntimeError => e
  check("profile outside a session", e.message, "Rperf is not started")
end

def cpu_part = burn_cpu(0.15)
def sleep_part = sleep(0.15)

# cpu at 250 Hz: about 150 ms of CPU, the sleep costing nothing.
data = Rperf.start(mode: :cpu, frequency: 250) do
  check("the agent's two threads during the session", worker_threads, 2)
  check("labels at start", Rperf.labels, {})
  Rperf.label(phase: "one")
  cpu_part
  sleep_part
end
check("cpu session mode", data[:mode], :cpu)
check("cpu session frequency", data[:frequency], 250)
raise "cpu session weighs #{ms(data[:aggregated_samples])} ms, truth 150" unless near(ms(data[:aggregated_samples]), 150)
raise "cpu session rate: #{data[:sampling_count]} samples for 150 ms at 250 Hz" unless data[:sampling_count].between?(20, 55)
check("labels after stop", Rperf.labels, {})
check("the label was in the session", data[:label_sets]&.include?({phase: "one"}), true)
check("no sampling thread after stop", worker_threads_after_stop, 0)

# wall, raw: the sleep is there, blocked. The truths are the wall times the
# program saw (on a loaded machine, 150 ms of CPU take longer than 150 ms
# of wall, and a sleep wakes late).
def mono = Process.clock_gettime(Process::CLOCK_MONOTONIC)
slept = 0
started = mono
raw = Rperf.start(mode: :wall, frequency: 1000, aggregate: false) do
  cpu_part
  at = mono
  sleep_part
  slept = (mono - at) * 1000
end
wall = (mono - started) * 1000
raise "wall session weighs #{ms(raw[:raw_samples])} ms, truth #{wall.round(1)}" unless near(ms(raw[:raw_samples]), wall)
blocked = raw[:raw_samples].sum { |_, w, _, ls| raw[:label_sets][ls][:"%GVL"] == "blocked" ? w : 0 } / 1e6
raise "wall session: #{blocked} ms blocked, truth #{slept.round(1)}" unless near(blocked, slept)
check("raw samples come with their sums", raw[:aggregated_samples].sum { |_, w| w }, raw[:raw_samples].sum { |_, w| w })

# A second start while one runs; snapshot of a raw session.
Rperf.start(aggregate: false)
begin
  Rperf.start
  raise "a second start did not raise"
rescue RuntimeError => e
  check("second start", e.message, "Rperf is already running")
end
begin
  Rperf.snapshot
  raise "snapshot of a raw session did not raise"
rescue RuntimeError => e
  check("snapshot of a raw session", e.message, "snapshot requires aggregate mode (aggregate: true)")
end
Rperf.stop

# defer: nothing outside profile blocks, not even a tick.
Rperf.start(defer: true)
cpu_part
outside = Rperf.snapshot
check("deferred: no tick outside a block", outside[:trigger_count], 0)
Rperf.profile(endpoint: "/x") { cpu_part }
deferred = Rperf.stop
raise "deferred: #{ms(deferred[:aggregated_samples])} ms in the block, truth 150" unless near(ms(deferred[:aggregated_samples]), 150)

# The timer signal: false is a sleeping thread.
check("signal: false works", Rperf.start(signal: false) { cpu_part }[:sampling_count] > 10, true)
check("running? after all", Rperf.running?, false)
check("no sampling thread at the end", worker_threads_after_stop, 0)
puts "dormant.rb ok"
