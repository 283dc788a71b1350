# frozen_string_literal: true

# rperf/viewer.rb — a Rack middleware that shows flame graphs of snapshots
# taken inside a running server, as the rperf gem's Rperf::Viewer does:
#
#   require "rperf/viewer"
#   use Rperf::Viewer                          # under /rperf
#   use Rperf::Viewer, path: "/profiler", max_snapshots: 12
#   Rperf::Viewer.instance.take_snapshot!      # e.g. from a timer thread
#   Rperf::Viewer.instance.add_snapshot(data)  # or data taken elsewhere
#
# Under its path only:
#   /              the snapshots kept, newest first, each a link
#   /snapshots     the same as JSON: [{id, taken_at, mode, duration_ns, sampling_count}]
#   /snapshots/ID  one snapshot as JSON (the gem's: samples root first, label_sets)
#   /snapshots/ID/ the viewer page of that snapshot: rperf-analyze's own
#                  convert --html page, made by the same code, which loads
#                  nothing from any network
# Everything else passes to the application.
#
# There is no authentication, as in the gem: whoever reaches the path sees
# the program's method names, file paths and labels. Mount it only where
# that is acceptable, or put it behind the application's own access control
# (docs/api.md: a Rack::Auth::Basic map, an internal port).

require_relative "../rperf"
require "json"
require "time"

class Rperf::Viewer
  @instance = nil

  class << self
    # The most recently created viewer.
    attr_reader :instance
  end

  attr_reader :max_snapshots, :path

  def initialize(app, path: "/rperf", max_snapshots: 24)
    unless max_snapshots.is_a?(Integer) && max_snapshots > 0
      raise ArgumentError, "max_snapshots must be a positive integer, got #{max_snapshots.inspect}"
    end
    @app = app
    @path = path.chomp("/")
    @max_snapshots = max_snapshots
    @snapshots = []
    @mutex = Mutex.new
    @next_id = 0
    self.class.instance_variable_set(:@instance, self)
  end

  # A snapshot of what the profiler has seen since the last one (nil when
  # nothing profiles the process), kept.
  def take_snapshot!
    data = Rperf.snapshot(clear: true)
    data && add_snapshot(data)
  end

  def add_snapshot(data)
    @mutex.synchronize do
      entry = {id: @next_id += 1, taken_at: Time.now, data: data}
      @snapshots << entry
      @snapshots.shift while @snapshots.size > @max_snapshots
      entry
    end
  end

  # Mounted inside a Rack `map` (or any app with a SCRIPT_NAME), the links
  # and the redirect carry the mount point.
  def call(env)
    path = env["PATH_INFO"].to_s
    base = "#{env["SCRIPT_NAME"]}#{@path}"
    return [301, {"location" => "#{base}/"}, [""]] if path == @path
    unless path.start_with?("#{@path}/")
      return @app ? @app.call(env) : not_found
    end

    case path[@path.size..]
    when "/" then index(base)
    when "/snapshots" then json(snapshot_list)
    when %r{\A/snapshots/(\d+)\z} then with_snapshot($1.to_i) { |s| json(snapshot_detail(s)) }
    when %r{\A/snapshots/(\d+)/\z} then with_snapshot($1.to_i) { |s| page(s) }
    else not_found
    end
  end

  private

  # The page's own policy: the viewer page runs its inline script and style
  # and nothing else; no frame may hold it.
  HTML_HEADERS = {
    "content-type" => "text/html; charset=utf-8",
    "x-frame-options" => "DENY",
    "x-content-type-options" => "nosniff",
    "content-security-policy" => "default-src 'none'; script-src 'unsafe-inline'; " \
                                 "style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'",
    "cache-control" => "no-store",
  }.freeze

  def html(body) = [200, HTML_HEADERS.dup, [body]]

  # Data handed to add_snapshot that is not a profile is said in the
  # answer, not raised into the server.
  def page(entry)
    html(Rperf._encode(entry[:data], :html))
  rescue ArgumentError, TypeError => e
    [500, {"content-type" => "text/plain; charset=utf-8", "x-content-type-options" => "nosniff"}, ["snapshot #{entry[:id]} cannot be drawn: #{e.message}"]]
  end

  def json(value)
    [200, {"content-type" => "application/json; charset=utf-8", "x-content-type-options" => "nosniff",
           "cache-control" => "no-store"}, [JSON.generate(value)]]
  end

  def not_found(what = "Not Found") = [404, {"content-type" => "text/plain", "x-content-type-options" => "nosniff"}, [what]]

  def with_snapshot(id)
    entry = @mutex.synchronize { @snapshots.find { |s| s[:id] == id } }
    entry ? yield(entry) : not_found("Snapshot not found")
  end

  def summary(entry)
    data = entry[:data]
    {id: entry[:id], taken_at: entry[:taken_at].iso8601, mode: data[:mode],
     duration_ns: data[:duration_ns], sampling_count: data[:sampling_count]}
  end

  def snapshot_list = @mutex.synchronize { @snapshots.map { |s| summary(s) } }

  def snapshot_detail(entry)
    data = entry[:data]
    samples = (data[:aggregated_samples] || []).map do |frames, weight, thread_seq, label_set_id|
      {stack: frames.reverse.map { |f| f[1] }, weight: weight, thread_seq: thread_seq || 0,
       label_set_id: label_set_id || 0}
    end
    label_sets = (data[:label_sets] || []).map { |ls| ls.is_a?(Hash) ? ls.transform_keys(&:to_s) : ls }
    summary(entry).merge(frequency: data[:frequency], samples: samples, label_sets: label_sets)
  end

  def escape(text) = text.to_s.gsub(/[&<>"']/, "&" => "&amp;", "<" => "&lt;", ">" => "&gt;", '"' => "&quot;", "'" => "&#39;")

  def index(base)
    rows = snapshot_list.reverse.map do |s|
      ms = s[:duration_ns].to_i / 1_000_000.0
      %(<tr><td><a href="#{escape(base)}/snapshots/#{s[:id]}/">##{s[:id]}</a></td>) +
        %(<td>#{escape(s[:taken_at])}</td><td>#{escape(s[:mode])}</td>) +
        %(<td class="num">#{format("%.1f", ms)} ms</td><td class="num">#{s[:sampling_count].to_i}</td></tr>)
    end
    body = rows.empty? ? "<p>No snapshot yet: take one with <code>Rperf::Viewer.instance.take_snapshot!</code>.</p>" :
      "<table><thead><tr><th>snapshot</th><th>taken at</th><th>mode</th><th>duration</th><th>samples</th></tr></thead>" \
      "<tbody>#{rows.join}</tbody></table>"
    html(<<~HTML)
      <!DOCTYPE html>
      <html lang="en"><head><meta charset="utf-8"><title>rperf snapshots</title>
      <style>body{font:14px system-ui,sans-serif;margin:2em}td,th{padding:.2em .8em;text-align:left}.num{text-align:right}</style>
      </head><body><h1>rperf snapshots</h1>#{body}</body></html>
    HTML
  end
end
