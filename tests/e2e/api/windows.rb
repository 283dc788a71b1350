# tests/e2e/api/windows.rb — Rperf.snapshot(clear:) and sessions
# (Rperf.start/stop) inside the agent's whole-process profile: the gem 0.9
# Hash shape, windows covering their own stretch only, a session with its
# own mode, rate and aggregation beside the process's, its output file,
# and the gem's errors for bad options. The profile written at exit still
# has everything, as its own configuration says (api_windows.sh checks it).
require "rperf"
require "cpu_burn"

def check(what, ok)
  raise "#{what}" unless ok
end

def ms(data) = data[:aggregated_samples].sum { |_, w| w } / 1e6
def has(data, name) = data[:aggregated_samples].any? { |frames, | frames.any? { |_, l| l == name } }
def near(got, truth) = got.between?(truth * 0.9, truth * 1.1)

def before_clear = burn_cpu(0.2)
def after_clear = burn_cpu(0.1)
def windowed = burn_cpu(0.15)

# The first sample of the main thread weighs all it did since the
# profile began (booting, requiring): on a loaded machine, where that
# sample can come tens of ms late, let it land here, not in before_clear.
def warm_up = burn_cpu(0.05)
warm_up

Rperf.label(phase: "one") { before_clear }
snap = Rperf.snapshot
%i[mode frequency trigger_count sampling_count sampling_time_ns detected_thread_count
   unique_frames unique_stacks start_time_ns duration_ns aggregated_samples label_sets].each do |k|
  check("snapshot lacks #{k}", snap.key?(k))
end
check("mode", snap[:mode] == :cpu)
check("frequency", snap[:frequency] == 1000)
check("label_sets[0] is {}", snap[:label_sets].first == {})
check("label set with phase", snap[:label_sets].include?({phase: "one"}))
snap[:aggregated_samples].each do |frames, weight, thread_seq, label_set_id|
  check("frames: #{frames.inspect}", frames.all? { |f| f.is_a?(Array) && f.size == 2 && f.all?(String) })
  check("weight", weight.is_a?(Integer) && weight > 0)
  check("thread_seq", thread_seq.is_a?(Integer) && thread_seq >= 1)
  check("label_set_id", snap[:label_sets][label_set_id])
end
leaf_first = snap[:aggregated_samples].find { |frames, | frames.any? { |_, l| l == "Object#before_clear" } }[0]
check("frames leaf first: #{leaf_first.first(3).inspect}", leaf_first.last[1] == "<main>")
check("snapshot sees before_clear", has(snap, "Object#before_clear"))

Rperf.snapshot(clear: true)
after_clear
snap2 = Rperf.snapshot
check("after clear: before_clear gone", !has(snap2, "Object#before_clear"))
check("after clear: #{ms(snap2)} ms, not ~100", near(ms(snap2), 100))
check("trigger_count restarted", snap2[:trigger_count] < snap[:trigger_count])
check("duration_ns of the window", snap2[:duration_ns] < 1_000_000_000)

check("stop without start", Rperf.stop.nil?)
Rperf.start(mode: :cpu, frequency: 1000, output: "window.json.gz", verbose: true)
begin
  Rperf.start
  raise "a second start did not raise"
rescue RuntimeError => e
  check("second start: #{e.message}", e.message.include?("already running"))
end
windowed
data = Rperf.stop
check("stop: #{ms(data)} ms, not ~150", near(ms(data), 150))
check("stop: only the window", has(data, "Object#windowed") && !has(data, "Object#after_clear"))
check("output written", File.size?("window.json.gz"))
check("stop again", Rperf.stop.nil?)
check("block form returns stop's data", near(ms(Rperf.start { windowed }), 150))

# A session of its own inside the whole-process cpu profile at 1000 Hz:
# wall time at 100 Hz, raw samples, written as pprof.
def sleeper = sleep(0.2)
wall_truth = nil
raw = Rperf.start(mode: :wall, frequency: 100, aggregate: false, output: "session.pb.gz") do
  t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  windowed
  sleeper
  wall_truth = (Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0) * 1000 # CPU burnt takes longer under load
end
check("session mode", raw[:mode] == :wall)
check("session frequency", raw[:frequency] == 100)
check("session raw samples", raw[:raw_samples].is_a?(Array) && raw[:aggregated_samples].is_a?(Array))
# 350 ms at 100 Hz: about 35 ticks (the rate is the session's, not 1000 Hz)
check("session rate: #{raw[:sampling_count]} samples in 350 ms", raw[:sampling_count].between?(15, 45))
wall_ms = raw[:raw_samples].sum { |_, w| w } / 1e6
check("session weights are wall time: #{wall_ms} ms of #{wall_truth.round(1)}", near(wall_ms, wall_truth))
blocked = raw[:raw_samples].sum do |_, w, _, ls|
  raw[:label_sets] && raw[:label_sets][ls][:"%GVL"] == "blocked" ? w : 0
end / 1e6
# (a thread woken from its sleep may wait for a core before it asks for
# the GVL again: still blocked; on a loaded machine that wait shows in
# the block's wall time beyond its 350 ms, which bounds it: 235.6 ms
# seen beside two busy loops)
late = [wall_truth - 350, 0].max
check("the sleep is GVL blocked in the session: #{blocked} ms (#{late.round(1)} ms late)",
      blocked.between?(180, 220 + late))
check("pprof written", File.binread("session.pb.gz", 2) == "\x1f\x8b".b)
check("whole profile still cpu", Rperf.snapshot[:mode] == :cpu && Rperf.snapshot[:frequency] == 1000)

# The gem's words for bad options.
{{frequency: 0} => "frequency must be a positive integer (got 0)",
 {frequency: 10_001} => "frequency must be <= 10000 (10KHz), got 10001",
 {mode: :fast} => "mode must be :cpu or :wall, got :fast",
 {inherit: :spawn} => "inherit must be :fork, true, or false, got :spawn",
 {signal: "9"} => "signal must be nil, false, or an Integer, got \"9\"",
 {signal: 9} => "signal 9 (KILL) cannot be caught; use a different signal"}.each do |opts, text|
  Rperf.start(**opts)
  raise "start(#{opts}) did not raise"
rescue ArgumentError => e
  check("start(#{opts}): #{e.message}", e.message == text)
end
check("nothing left open", Rperf.stop.nil?)
check("running?", Rperf.running? == true)
puts "windows.rb ok"
