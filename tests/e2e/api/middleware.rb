# tests/e2e/api/middleware.rb — the Rack, Sidekiq and ActiveJob
# middlewares under the agent (api_middleware.sh checks the profile; run
# with RPERF_DEFER=1, so only requests and jobs are sampled). With
# RACK_LIB set (Debian's ruby-rack, unpacked by scripts/setup) the app is
# a real Rack::Builder stack driven by Rack::MockRequest; without it, a
# plain Rack-style call(env) app.
require "cpu_burn"

begin
  require "rperf/active_job"
  raise "rperf/active_job loaded without ActiveSupport"
rescue LoadError => e
  raise "unclear LoadError: #{e.message}" unless e.message.include?("needs ActiveSupport")
end
require "rperf/rack"
require "rperf/sidekiq"

def check(what, ok) = ok || raise(what)

check("normalize", Rperf::RackMiddleware.normalize_path("/users/123/posts/9") == "/users/:id/posts/:id")
check("uuid", Rperf::RackMiddleware.normalize_path("/o/550e8400-e29b-41d4-a716-446655440000") == "/o/:uuid")
check("words kept", Rperf::RackMiddleware.normalize_path("/v2/abc123/x") == "/v2/abc123/x")
check("empty path", Rperf::RackMiddleware.normalize_path("") == "/")

# X-Request-Start as proxies write it: seconds (nginx "t=${msec}"),
# milliseconds or microseconds since the epoch, with or without "t=".
queued = ->(value) { Rperf::RackMiddleware.queued_at("HTTP_X_REQUEST_START" => value) }
check("t= seconds", queued.call("t=1764590000.123") == 1764590000.123)
check("milliseconds", queued.call("1764590000123") == 1764590000.123)
check("microseconds", (queued.call("t=1764590000123456") - 1764590000.123456).abs < 1e-6)
check("X-Queue-Start", Rperf::RackMiddleware.queued_at("HTTP_X_QUEUE_START" => "t=1764590000.5") == 1764590000.5)
check("no header", Rperf::RackMiddleware.queued_at({}).nil?)
check("garbage", queued.call("soon").nil? && queued.call("t=12").nil?)

# What each path costs, in CPU seconds. "/warmup" costs nothing and goes
# first: the first request through the stack loads what Rack requires
# lazily, CPU time that went to "/users" (52-55 ms of its 50 on a busy
# machine) when it was first.
COST = {"/warmup" => 0, "/users" => 0.05, "/users/" => 0.1, "/orders/" => 0.15}.freeze
app = lambda do |env|
  path = env["PATH_INFO"]
  seconds = COST.fetch(path) { path.start_with?("/orders/") ? COST["/orders/"] : COST["/users/"] }
  burn_cpu(seconds)
  [200, {"content-type" => "text/plain"}, ["ok #{path}"]]
end

requests = [
  "/warmup", "/users", "/users/1", "/users/22", "/orders/550e8400-e29b-41d4-a716-446655440000/items/3",
]
if ENV["RACK_LIB"]
  $LOAD_PATH.unshift(ENV["RACK_LIB"])
  require "rack"
  require "rack/builder"
  require "rack/mock"
  stack = Rack::Builder.new do
    use Rperf::RackMiddleware
    run app
  end.to_app
  requests.each do |path|
    res = Rack::MockRequest.new(stack).get(path)
    check("#{path}: #{res.status}", res.status == 200 && res.body == "ok #{path}")
  end
  puts "rack: Rack #{Rack.release} (Rack::Builder, Rack::MockRequest)"
else
  stack = Rperf::RackMiddleware.new(app)
  requests.each do |path|
    status, _, body = stack.call("REQUEST_METHOD" => "GET", "PATH_INFO" => path)
    check("#{path}: #{status}", status == 200 && body == ["ok #{path}"])
  end
  puts "rack: a plain call(env) app"
end
raw = Rperf::RackMiddleware.new(app, label_key: :raw_endpoint, label: :raw)
raw.call("REQUEST_METHOD" => "POST", "PATH_INFO" => "/users/7")
custom = Rperf::RackMiddleware.new(app, label_key: :route, label: ->(env) { "route-#{env["PATH_INFO"].size}" })
custom.call("REQUEST_METHOD" => "GET", "PATH_INFO" => "/users")
begin
  Rperf::RackMiddleware.new(app, label: 42)
  raise "label: 42 accepted"
rescue ArgumentError
end

def hard_job = burn_cpu(0.1)
sidekiq = Rperf::SidekiqMiddleware.new
sidekiq.call(Object.new, {"class" => "HardJob"}, "default") { hard_job }
sidekiq.call(Object.new, {"class" => "Wrapper", "wrapped" => "MailJob"}, "mail") { burn_cpu(0.05) }

$LOAD_PATH.unshift(File.join(__dir__, "stand_in"))
require "rperf/active_job"
class FakeJobBase # the part of ActiveJob::Base the middleware uses
  def self.around_perform(&callback) = (@arounds ||= []) << callback
  def self.arounds = ancestors.flat_map { |c| c.instance_variable_get(:@arounds) || [] }
  def perform_now = self.class.arounds.reduce(-> { perform }) { |inner, cb| -> { cb.call(self, inner) } }.call
end
class ApplicationJob < FakeJobBase
  include Rperf::ActiveJobMiddleware
end
class ReportJob < ApplicationJob
  def perform = burn_cpu(0.08)
end
ReportJob.new.perform_now
burn_cpu(0.3) # outside every request and job: not sampled (RPERF_DEFER=1)
puts "middleware.rb ok"
