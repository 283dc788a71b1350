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
# does). The request runs in an Rperf.profile block, so with RPERF_DEFER=1
# only requests are sampled.

require_relative "../rperf"

class Rperf::RackMiddleware
  NUMBER_SEGMENT = %r{(?<=/)\d+(?=/|\z)}
  UUID_SEGMENT = %r{(?<=/)\h{8}-\h{4}-\h{4}-\h{4}-\h{12}(?=/|\z)}
  private_constant :NUMBER_SEGMENT, :UUID_SEGMENT

  # "/users/123/posts/9" → "/users/:id/posts/:id"; a UUID → ":uuid"
  def self.normalize_path(path)
    path = "/" if path.nil? || path.empty?
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
  # the response's status, from the call until the server closes the body
  # (it has written the response then, as the client sees it); the call
  # runs in an Rperf.profile block.
  def call(env)
    Body.finish_on(Thread.current) # a body the server never closed
    name = endpoint(env)
    status = nil
    Rperf._request_begin(name)
    begin
      response = Rperf.profile(@label_key => name) { @app.call(env) }
      status = response[0]
      response[2] = Body.new(response[2], status)
      response
    ensure
      Rperf._request_end(status.to_i) unless response && response[2].is_a?(Body)
    end
  end

  # The response body, which ends the request when the server closes it.
  class Body
    def self.finish_on(thread)
      open = thread[:__rperf_open_body]
      open&.finish
    end

    def initialize(body, status)
      @body = body
      @status = status.to_i
      @thread = Thread.current
      @thread[:__rperf_open_body] = self
    end

    def each(&block) = @body.each(&block)

    def close
      @body.close if @body.respond_to?(:close)
    ensure
      finish
    end

    # Once, on the thread that began the request.
    def finish
      return unless @thread
      @thread[:__rperf_open_body] = nil if @thread[:__rperf_open_body].equal?(self)
      Rperf._request_end(@status) if Thread.current == @thread
      @thread = nil
    end

    def respond_to_missing?(name, include_private = false) = @body.respond_to?(name, include_private)
    def method_missing(name, *args, &block) = @body.__send__(name, *args, &block)
  end

  private

  def endpoint(env)
    case @label
    when nil then "#{env["REQUEST_METHOD"]} #{self.class.normalize_path(env["PATH_INFO"])}"
    when :raw then "#{env["REQUEST_METHOD"]} #{env["PATH_INFO"]}"
    else @label.call(env)
    end
  end
end
