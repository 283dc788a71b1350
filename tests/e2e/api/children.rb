# tests/e2e/api/children.rb — a session's children, as the gem's API
# follows them (api_children.sh runs this dormant and under the
# whole-process profile): inherit: :fork merges forked children into the
# result at stop, each labelled with its pid; inherit: false leaves a
# forked child without the session; inherit: true merges spawned Ruby
# programs too, and one that does not preload the agent gets the API as
# the gem's is when not started; a session directory gone before stop is
# said, and the root's own data still returned and written.
require "rperf"
require "cpu_burn"
require "tmpdir"
require_relative "check"

def parent_work = burn_cpu(0.2)
def child_work = burn_cpu(0.3)

def weight_of(data, method)
  data[:aggregated_samples].sum { |frames, w| frames.any? { |_, label| label == method } ? w : 0 }
end

# The label sets of the samples through `frames_method`, without the VM
# state's labels (a GC that ran inside the method adds %GC to some).
def label_of(data, frames_method)
  ids = data[:aggregated_samples].filter_map { |frames, _, _, id| id if frames.any? { |_, l| l == frames_method } }
  ids.uniq.map { |id| data[:label_sets][id].reject { |k, _| %i[%GC %GVL].include?(k.to_sym) } }.uniq
end

ms = ->(ns) { ns / 1_000_000 }
# api_children.sh sets RPERF_TMPDIR: the sessions' directories are there.
session_dirs = -> { Dir.glob(File.join(ENV.fetch("RPERF_TMPDIR"), "rperf-#{Process.uid}", "rperf-#{Process.pid}-*")) }
agent_dir = ENV["RPERF_SESSION_DIR"] # the whole-process profile's, if any

# inherit: :fork (the default): the child's samples come back at stop.
Rperf.start(mode: :cpu, frequency: 500)
check("a session directory is made for the children", session_dirs.().size, 1)
check("the children are told it, unless they write the whole-process profile",
      ENV["RPERF_SESSION_DIR"], agent_dir || session_dirs.().first)
pid = fork { child_work }
parent_work
Process.wait(pid)
check("the forked child succeeded", $?.success?, true)
data = Rperf.stop
child_ms = ms.(weight_of(data, "Object#child_work"))
check("the child's CPU time is in the result (#{child_ms} ms of 300)", child_ms.between?(200, 450), true)
check("the parent's CPU time is in the result", ms.(weight_of(data, "Object#parent_work")).between?(130, 300), true)
check("the child's samples carry its pid", label_of(data, "Object#child_work"), [{"%pid": pid.to_s}])
check("the parent's samples carry no pid", label_of(data, "Object#parent_work").none? { |l| l.key?(:"%pid") }, true)
check("the session directory is removed at stop", session_dirs.(), [])
check("the session's variables are put back", [ENV["RPERF_SESSION_DIR"], ENV["RPERF_ROOT_PROCESS"]], [agent_dir, nil])

# A child that forks again: the grandchild is merged too.
Rperf.start(mode: :cpu, frequency: 500)
pid = fork do
  grandchild = fork { child_work }
  Process.wait(grandchild)
end
Process.wait(pid)
data = Rperf.stop
check("the grandchild's CPU time is in the result", ms.(weight_of(data, "Object#child_work")).between?(200, 450), true)

# inherit: false: the child is not in the session, and may start its own.
Rperf.start(mode: :cpu, frequency: 500, inherit: false)
check("inherit: false makes no directory", [session_dirs.(), ENV["RPERF_SESSION_DIR"]], [[], agent_dir])
rd, wr = IO.pipe
pid = fork do
  rd.close
  wr.puts(Rperf.stop.inspect)
  own = Rperf.start(mode: :cpu, frequency: 500) { child_work }
  wr.puts(ms.(weight_of(own, "Object#child_work")))
  wr.close
end
wr.close
child_said = rd.read.split("\n")
Process.wait(pid)
data = Rperf.stop
check("the child of inherit: false has no session", child_said[0], "nil")
check("its own session there works", child_said[1].to_i.between?(200, 450), true)
check("the parent's result has no child", weight_of(data, "Object#child_work"), 0)

# inherit: true: a spawned Ruby program is merged too; with :fork it is not.
spawned = [RbConfig.ruby, "-rcpu_burn", "-e", "def spawned_work = burn_cpu(0.3); spawned_work"]
data = Rperf.start(mode: :cpu, frequency: 500, inherit: true) { system(*spawned) or raise "spawned child failed" }
spawned_ms = ms.(weight_of(data, "Object#spawned_work"))
check("inherit: true merges the spawned program (#{spawned_ms} ms of 300)", spawned_ms.between?(200, 450), true)
check("inherit: true puts RUBYOPT back", ENV["RUBYOPT"].to_s.include?("-rrperf"), false)
data = Rperf.start(mode: :cpu, frequency: 500) { system(*spawned) or raise "spawned child failed" }
check("inherit: :fork leaves the spawned program out", weight_of(data, "Object#spawned_work"), 0)

# A spawned child that does not preload the agent still gets RUBYOPT=-rrperf:
# the API there does what the gem's does when not started.
unprofiled = <<~'RUBY'
  puts Rperf.label(tenant: "a") { "label runs its block" }
  puts [Rperf.snapshot, Rperf.stop, Rperf.running?, Rperf.labels].inspect
  begin
    Rperf.start
  rescue RuntimeError => e
    puts e.message
  end
RUBY
said = nil
Rperf.start(mode: :cpu, inherit: true) do
  said = IO.popen({"LD_PRELOAD" => nil}, [RbConfig.ruby, "-e", unprofiled], &:read)
end
check("without the agent", said.lines.map(&:chomp),
      ["label runs its block", "[nil, nil, false, {}]",
       "rperf: the agent is not loaded in this process; run Ruby with LD_PRELOAD=librperf-agent.so (or the rperf command)"])

# The session directory gone before stop: said, and the root's data kept.
Dir.mktmpdir do |out|
  output = File.join(out, "root.json.gz")
  Rperf.start(mode: :cpu, frequency: 500, output: output)
  pid = fork { child_work }
  Process.wait(pid)
  require "fileutils"
  FileUtils.rm_rf(session_dirs.())
  parent_work
  said = stderr_of { data = Rperf.stop }
  check("a lost session directory is said",
        said, "rperf: warning: multi-process aggregation failed; writing root process data only\n")
  check("the root's data is returned", ms.(weight_of(data, "Object#parent_work")) > 100, true)
  check("the root's data is written", ms.(weight_of(Rperf.load(output), "Object#parent_work")) > 100, true)
end
puts "children.rb ok"
