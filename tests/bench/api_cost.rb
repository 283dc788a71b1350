# tests/bench/api_cost.rb — what the Rperf API costs a program under the
# agent (scripts/bench api): nanoseconds per call of each form, less the
# same loop with a plain block-taking method (the loop's own cost), best
# of ROUNDS rounds of N calls, and what a session's start and stop cost.
# Prints "name ns_per_call" lines.
#   ruby api_cost.rb N ROUNDS
require "rperf"
require "rperf/rack"

N = Integer(ARGV.fetch(0, 200_000))
ROUNDS = Integer(ARGV.fetch(1, 5))

def plain(**) = yield
def now = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)

def best_ns_per_call
  ROUNDS.times.map do
    t0 = now
    yield
    (now - t0).fdiv(N)
  end.min
end

def report(name, base = 0)
  ns = best_ns_per_call { yield }
  printf("%s %.0f\n", name, ns - base)
end

# A dormant agent (RPERF_ENABLED=0) has nothing to label outside a session.
dormant = ENV["RPERF_ENABLED"] == "0"
Rperf.start(mode: :cpu, frequency: 1000, inherit: false) if dormant
base = best_ns_per_call { N.times { plain(request: "abc") {} } }
printf("loop_with_plain_block %.0f\n", base)
report("label_block_1_key", base) { N.times { Rperf.label(request: "abc") {} } }
report("label_block_3_keys", base) { N.times { Rperf.label(request: "abc", user: "u1", tenant: "t") {} } }
report("label_block_nested", base) do
  Rperf.label(tenant: "t") { N.times { Rperf.label(request: "abc") {} } }
end
ids = Array.new(N) { |i| "req-#{i}" } # a new value per call: a new label set each time
report("label_block_new_value", base) { ids.each { |id| Rperf.label(request: id) {} } }
report("profile_block", base) { N.times { Rperf.profile(endpoint: "/users") {} } }
# A fiber switched to and back (as Enumerator#next does), before any
# request: no fiber switch hook yet — the base of the fiber_switch rows.
pong = Fiber.new { loop { Fiber.yield } }
switch = best_ns_per_call { N.times { pong.resume } }
report("request_block", base) { N.times { Rperf.request("GET /users") {} } }
# Once a request was recorded the agent's fiber switch hook is on: what
# it adds to each resume and yield, outside a request and inside one
# (the switch then looks for the fiber's own request).
report("fiber_switch_hooked", switch) { N.times { pong.resume } }
report("fiber_switch_in_request", switch) { Rperf.request("GET /enum") { N.times { pong.resume } } }

app = ->(_env) { [200, {}, ["ok"]] }
env = {"REQUEST_METHOD" => "GET", "PATH_INFO" => "/users/123/posts/9"}
stack = Rperf::RackMiddleware.new(app)
app_ns = best_ns_per_call { N.times { app.call(env) } }
report("rack_request", app_ns) { N.times { stack.call(env) } }
env_plain = {"REQUEST_METHOD" => "GET", "PATH_INFO" => "/users"}
report("rack_request_no_ids", app_ns) { N.times { stack.call(env_plain) } }
env_queued = env.merge("HTTP_X_REQUEST_START" => format("t=%.3f", Time.now.to_f))
report("rack_request_queued", app_ns) { N.times { stack.call(env_queued) } }
# Looking for X-Request-Start alone (a part of every rack_request), less
# the empty loop: without the header, and reading one.
empty = best_ns_per_call { N.times {} }
report("rack_queue_start_absent", empty) { N.times { Rperf::RackMiddleware.queued_at(env) } }
report("rack_queue_start_read", empty) { N.times { Rperf::RackMiddleware.queued_at(env_queued) } }

Rperf.stop if dormant

# Sessions: Rperf.start .. Rperf.stop around nothing, per pair (a dormant
# agent starts and stops its sampling thread each time); with the default
# inherit: :fork a session directory is made and removed too.
SESSIONS = [N / 1000, 20].max
def session_ns(**opts)
  ROUNDS.times.map do
    t0 = now
    SESSIONS.times { Rperf.start(mode: :cpu, frequency: 100, **opts) {} }
    (now - t0).fdiv(SESSIONS)
  end.min
end
printf("session_start_stop %.0f\n", session_ns(inherit: false))
printf("session_with_directory %.0f\n", session_ns)
