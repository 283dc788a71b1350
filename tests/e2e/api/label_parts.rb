# tests/e2e/api/label_parts.rb — labels across part boundaries
# (RPERF_INTERVAL=1; label_parts.sh checks the parts). Between parts the
# agent compacts its label store; a thread's current labels and those an
# open block will restore must come through renumbered but unchanged. Each
# request gets its own id label, as a server labelling requests would.
require "rperf"
require "cpu_burn"
require_relative "check"

def handle_request = burn_cpu(0.01)
def tail = burn_cpu(0.2)
def background = burn_cpu(0.05)

clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
# A thread labelled without a block: only its current set, carried by
# each compaction, gives its labels.
worker = Thread.new do
  Rperf.label(worker: "bg")
  started = clock.()
  background while clock.() < started + 2.5
  check("worker thread after the boundaries", Rperf.labels, {worker: "bg"})
end

# A fiber abandoned inside a labelled block never runs its ensure: the set
# it would restore stays held. Compactions must live with it.
Thread.new { Fiber.new { Rperf.label(fiber: "abandoned") { Fiber.yield } }.resume }.join
GC.start

Rperf.label(service: "api") # no block: stays set
requests = 0
Rperf.label(endpoint: "GET /items") do
  started = clock.()
  while clock.() < started + 2.5 # two part boundaries at least
    Rperf.label(request: requests += 1) { handle_request }
    check("after request #{requests}", Rperf.labels, {service: "api", endpoint: "GET /items"})
  end
  Rperf.label(phase: "tail") do
    check("tail", Rperf.labels, {service: "api", endpoint: "GET /items", phase: "tail"})
    tail
  end
end
check("after the endpoint block", Rperf.labels, {service: "api"})
worker.join
puts "label_parts.rb ok: #{requests} requests"
