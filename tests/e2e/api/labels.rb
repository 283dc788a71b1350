# tests/e2e/api/labels.rb — Rperf.label and Rperf.labels under the agent
# (api_labels.sh checks the profile). Each method burns a known CPU time
# under known labels; the API's answers are checked here, in the program.
require "rperf"
require "cpu_burn"
require_relative "check"

def in_request_a = burn_cpu(0.30)
def in_request_b = burn_cpu(0.20)
def nested_inner = burn_cpu(0.15)
def after_delete = burn_cpu(0.15)
def after_raise = burn_cpu(0.10)
def unlabelled = burn_cpu(0.10)

check("running?", Rperf.running?, true)
check("labels before any", Rperf.labels, {})
check("block value", Rperf.label(request: "a") { in_request_a; :value }, :value)
check("restored after a block", Rperf.labels, {})

Rperf.label(request: "b", user: 42) do
  check("non-string value", Rperf.labels, {request: "b", user: "42"})
  in_request_b
  Rperf.label("phase" => :inner) do
    check("nested, string key", Rperf.labels, {request: "b", user: "42", phase: "inner"})
    nested_inner
  end
  Rperf.label(user: nil) do
    check("nil deletes", Rperf.labels, {request: "b"})
    after_delete
  end
end

begin
  Rperf.label(step: "boom") { raise "boom" }
rescue RuntimeError
  check("restored after an exception", Rperf.labels, {})
end
after_raise

Rperf.label(tenant: "t1") # no block: stays set
check("without a block", Rperf.labels, {tenant: "t1"})
Rperf.label(tenant: nil)
unlabelled

# Threads keep their own labels.
threads = {"w1" => 0.2, "w2" => 0.4}.map do |name, seconds|
  Thread.new do
    Rperf.label(worker: name) do
      check("thread #{name}", Rperf.labels, {worker: name})
      burn_cpu(seconds)
    end
  end
end
threads.each(&:join)
check("main thread untouched by the threads", Rperf.labels, {})

# A fork child keeps the labels its thread had at fork.
Rperf.label(tenant: "forked") do
  pid = fork do
    check("fork child labels", Rperf.labels, {tenant: "forked"})
    burn_cpu(0.2)
  end
  Process.wait(pid)
  raise "fork child failed" unless $?.success?
end
puts "labels.rb ok"
