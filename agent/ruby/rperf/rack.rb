# frozen_string_literal: true

# rperf/rack.rb — labels every Rack request with its endpoint.
#
#   use Rperf::RackMiddleware                      # endpoint: "GET /users/:id"
#   use Rperf::RackMiddleware, label_key: :route   # another label key
#   use Rperf::RackMiddleware, label: :raw         # "GET /users/123"
#   use Rperf::RackMiddleware, label: ->(env) { env["HTTP_X_ROUTE"] }
#
# By default the path is normalized so that one route is one label value:
# path segments that are numbers become ":id", UUIDs ":uuid" (as the gem
# does); and once the application has returned, the request is counted
# under the route its router matched, when the router says so (Rails:
# "GET /posts/:slug", Sinatra likewise), so that 300 slugs are one endpoint
# of rperf-analyze requests. The request runs in an Rperf.profile block, so
# with RPERF_DEFER=1 only requests are sampled. When nothing is profiling
# (a dormant agent, before `rperf ctl start`) the application is called
# as it is: its requests never fail for want of a profile.

require_relative "../rperf"

class Rperf::RackMiddleware
  NUMBER_SEGMENT = %r{(?<=/)\d+(?=/|\z)}
  UUID_SEGMENT = %r{(?<=/)\h{8}-\h{4}-\h{4}-\h{4}-\h{12}(?=/|\z)}
  private_constant :NUMBER_SEGMENT, :UUID_SEGMENT

  # A value of the env as valid UTF-8 text: Rack's strings are often
  # binary, and may hold invalid bytes (what Rack::Utils.unescape_path
  # gives for "/caf%C3"); matched or joined as they come, they would raise
  # before the app runs (an invalid UTF-8 method beside a binary path:
  # Encoding::CompatibilityError).
  def self.text(value)
    value = value.to_s
    value = value.dup.force_encoding(Encoding::UTF_8) unless value.encoding == Encoding::UTF_8
    value.valid_encoding? ? value : value.scrub
  end

  # "/users/123/posts/9" → "/users/:id/posts/:id"; a UUID → ":uuid"
  def self.normalize_path(path)
    path = text(path)
    path = "/" if path.empty?
    return path unless path.match?(/\d/)

    path = path.gsub(UUID_SEGMENT, ":uuid") if path.include?("-") # most paths have none: one gsub
    path.gsub(NUMBER_SEGMENT, ":id")
  end

  def initialize(app, label_key: :endpoint, label: nil)
    unless label.nil? || label == :raw || label.respond_to?(:call)
      raise ArgumentError, "Rperf::RackMiddleware label: must be nil, :raw or a callable " \
                           "taking the Rack env, got #{label.inspect}"
    end
    @app = app
    @label_key = label_key
    @label = label
  end

  # The request is one of its endpoint's (rperf-analyze requests), with
  # the response's status, from the call (or from X-Request-Start: see
  # queued_at) to its return; the call runs in an Rperf.profile block.
  # The response is the app's, untouched (the gem's contract: a wrapped
  # body would not be the app's own object).
  def call(env)
    return @app.call(env) unless Rperf.running?

    name = endpoint(env)
    status = nil
    Rperf._request_begin(name, self.class.queued_at(env))
    begin
      # (not Rperf.profile: a stop landing since `running?` must not fail the request)
      response = Rperf._profile_if_running(@label_key => name) { @app.call(env) }
      status = response[0] if response.is_a?(Array)
      response
    ensure
      route = @label.nil? ? self.class.route(env) : nil
      Rperf._request_end(status.to_i, route)
      # the request's label names its route too, once the router found it
      Rperf._label_alias(@label_key, name, route) if route && route != name
    end
  end

  # The route the application's router matched, as "GET /posts/:slug",
  # from what routers leave in the env once they have routed: Rails' route
  # (7.1 and later: action_dispatch.route_uri_pattern, or the pattern of
  # action_dispatch.route it is made from; without its optional
  # "(.:format)"), Sinatra's sinatra.route, Grape's route (grape.routing_args'
  # route_info: its method and pattern, without the format suffix); nil when
  # there is none (a plain Rack app, a request no route matched, a router
  # that keeps its route to itself, as Roda does).
  def self.route(env)
    pattern = env["action_dispatch.route_uri_pattern"] || rails_route_pattern(env["action_dispatch.route"])
    return "#{text(env["REQUEST_METHOD"])} #{text(pattern).delete_suffix("(.:format)")}" if pattern.is_a?(String)

    route = env["sinatra.route"]
    return route if route.is_a?(String)

    grape_route(env["grape.routing_args"])
  end

  def self.grape_route(args)
    info = args[:route_info] if args.is_a?(Hash)
    return nil unless info.respond_to?(:request_method) && info.respond_to?(:pattern)

    origin = info.pattern.origin if info.pattern.respond_to?(:origin)
    "#{info.request_method} #{origin}" if origin.is_a?(String) && info.request_method.is_a?(String)
  rescue StandardError
    nil # a router's internals changed: the request keeps its path
  end

  # When the request reached the front of the system, from the
  # X-Request-Start (or X-Queue-Start) header a proxy in front adds —
  # nginx's "t=${msec}" (seconds), or milliseconds or microseconds since
  # the epoch, with or without "t=" — as Unix time in seconds; nil when
  # absent or unreadable. The request's queue time is from then on to the
  # call (rperf-analyze requests: %queue).
  def self.queued_at(env)
    header = env["HTTP_X_REQUEST_START"] || env["HTTP_X_QUEUE_START"]
    return nil unless header.is_a?(String)

    value = Float(header.start_with?("t=") ? header.byteslice(2, header.bytesize) : header, exception: false)
    return nil unless value

    if value > 1e14 then value / 1e6
    elsif value > 1e11 then value / 1e3
    elsif value > 1e8 then value
    end
  end

  def self.rails_route_pattern(route)
    path = route.path if route.respond_to?(:path)
    path.spec.to_s if path.respond_to?(:spec)
  end
  private_class_method :rails_route_pattern

  private

  def endpoint(env)
    case @label
    when nil then "#{self.class.text(env["REQUEST_METHOD"])} #{self.class.normalize_path(env["PATH_INFO"])}"
    when :raw then "#{self.class.text(env["REQUEST_METHOD"])} #{self.class.text(env["PATH_INFO"])}"
    else @label.call(env)
    end
  end
end
