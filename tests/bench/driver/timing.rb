# tests/bench/driver/timing.rb — running commands and reading their time:
# one run's wall and CPU time, back-to-back pairs in alternating order,
# the best of several runs with its peak memory, and the few statistics
# the benchmarks print (medians, fastest against fastest).
#
# A command is an array as Process.spawn takes it: an optional Hash of
# environment first, then the program and its arguments.
require "open3"

module Bench
  # Milliseconds: wall-clock time, and user+sys CPU time of the command
  # and all its threads.
  Timing = Struct.new(:wall, :cpu)

  def self.now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

  def self.run!(*cmd, **opts)
    system(*cmd, exception: true, **opts)
  end

  # The command's standard output (its errors where the driver's go).
  def self.capture(*cmd, **opts)
    IO.popen(cmd, **opts, &:read)
  end

  # The command's standard error, its output discarded; and whether it
  # succeeded.
  def self.capture_err(*cmd)
    _out, err, status = Open3.capture3(*cmd)
    [err, status.success?]
  end

  # A command's environment (empty when it has none) and its program
  # with arguments.
  def self.split_env(cmd) = cmd.first.is_a?(Hash) ? [cmd.first, cmd.drop(1)] : [{}, cmd]

  # CMD with ENV added to its environment.
  def self.with_env(cmd, env)
    own, argv = split_env(cmd)
    [own.merge(env), *argv]
  end

  # One run, output discarded. CPU time is the children's rusage before
  # and after: the driver waits for no other child meanwhile.
  def self.measure(*cmd)
    before = Process.times
    start = now
    Process.wait(Process.spawn(*cmd, out: File::NULL, err: File::NULL))
    wall = now - start
    after = Process.times
    Timing.new(wall * 1000, ((after.cutime - before.cutime) + (after.cstime - before.cstime)) * 1000)
  end

  # RUNS pairs of runs of A and B back to back, the first of each pair
  # alternating (B first on odd runs) so that a machine getting faster or
  # slower favours neither, unless alternate: false; the block, when
  # given, runs after each pair (to clear what the runs wrote).
  def self.measure_pairs(runs, a, b, alternate: true)
    (1..runs).map do |run|
      if alternate && run.odd?
        second = measure(*b)
        first = measure(*a)
      else
        first = measure(*a)
        second = measure(*b)
      end
      yield if block_given?
      [first, second]
    end
  end

  def self.wall_ratios(pairs) = pairs.map { |a, b| b.wall / a.wall }
  def self.cpu_ratios(pairs) = pairs.map { |a, b| b.cpu / a.cpu }

  # "min(B) / min(A)" of the pairs' wall times: the fastest run is the one
  # the machine disturbed least.
  def self.fastest_ratio(pairs)
    format("%.3f", pairs.map { |_, b| b.wall }.min / pairs.map { |a, _| a.wall }.min)
  end

  # The best wall time (s) of N runs and that run's peak RSS (KB), as
  # /usr/bin/time reports them.
  def self.best_of(n, *cmd)
    n.times.map do
      run!("/usr/bin/time", "-f", "%e %M", "-o", work("time.txt"), *cmd, out: File::NULL)
      secs, kb = File.read(work("time.txt")).split.map(&:to_f)
      [secs, kb]
    end.min_by(&:first)
  end

  def self.median(values)
    sorted = values.sort
    n = sorted.size
    n.odd? ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
  end

  def self.mean(values) = values.sum.to_f / values.size

  # A number as awk prints it: a whole value whole, others to six
  # significant digits.
  def self.awk(x) = x == x.round ? x.round.to_s : format("%.6g", x)

  # "median (max)" of some milliseconds.
  def self.median_max(values) = format("%.2f (%.2f)", median(values), values.max)
end
