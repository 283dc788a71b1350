# frozen_string_literal: true

# rperf/viewer.rb — a Rack middleware that shows flame graphs of snapshots
# taken inside a running server, as the rperf gem's Rperf::Viewer does:
#
#   require "rperf/viewer"
#   use Rperf::Viewer                          # under /rperf
#   use Rperf::Viewer, path: "/profiler", max_snapshots: 12
#   Rperf::Viewer.instance.take_snapshot!      # e.g. from a timer thread
#   Rperf::Viewer.instance.add_snapshot(data)  # or data taken elsewhere
#   Rperf::Viewer.instance.add_snapshot_dir("perf/")  # files, read when asked for
#   Rperf::Viewer.render_static_html(data)     # one page, as rperf report --html
#
# Under its path only:
#   /              the snapshots kept, newest first, each a link
#   /snapshots     the same as JSON: [{id, taken_at, mode, duration_ns, sampling_count}]
#                  (a directory's also with file, meta and summary)
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

  # `data` is kept with its meta and summary (Rperf::Meta's, unless it has
  # them), which the list and the JSON of each give, as for a file's.
  def add_snapshot(data)
    data = with_meta(data)
    @mutex.synchronize do
      entry = {id: @next_id += 1, taken_at: Time.now, data: data}
      @snapshots << entry
      # only snapshots held in memory count: a directory's are read when asked
      while @snapshots.count { |s| s[:data] } > @max_snapshots
        @snapshots.delete_at(@snapshots.index { |s| s[:data] })
      end
      entry
    end
  end

  # Every profile file of `dir` (*.json.gz, *.json: rperf record
  # --snapshot-dir's) as a snapshot listed by its meta and summary alone
  # (Rperf.read_meta), oldest commit first, its body read each time it is
  # asked for and not kept; max_snapshots does not count them. A file
  # without meta is listed by its name and time. Returns how many it added.
  def add_snapshot_dir(dir)
    files = Dir.glob(File.join(dir, "*.json.gz")) + Dir.glob(File.join(dir, "*.json"))
    entries = files.map do |path|
      head = begin
        Rperf.read_meta(path)
      rescue StandardError
        nil
      end
      meta = head && head[:meta]
      {path: path, meta: meta, summary: head && head[:summary], taken_at: snapshot_time(meta) || File.mtime(path)}
    end
    entries.sort_by! { |e| [e[:taken_at], e[:path]] }
    @mutex.synchronize { entries.each { |e| @snapshots << e.merge(id: @next_id += 1) } }
    entries.size
  end

  # The viewer page of `data` (a Hash of Rperf.stop, snapshot or load):
  # one self-contained HTML document, as `rperf report --html` writes.
  def self.render_static_html(data) = Rperf._encode(data, :html)

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
    when %r{\A/snapshots/(\d+)\z} then with_snapshot($1.to_i) { |s| detail(s) }
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
    html(Rperf._encode(data_of(entry), :html))
  rescue StandardError => e
    [500, {"content-type" => "text/plain; charset=utf-8", "x-content-type-options" => "nosniff"}, ["snapshot #{entry[:id]} cannot be drawn: #{e.message}"]]
  end

  # A directory's file that cannot be read any more is said, not raised.
  def detail(entry)
    json(snapshot_detail(entry))
  rescue StandardError => e # a file gone, broken, not gzip: said, not raised into the server
    [500, {"content-type" => "text/plain; charset=utf-8", "x-content-type-options" => "nosniff"},
     ["snapshot #{entry[:id]} cannot be read: #{e.message}"]]
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

  # A snapshot's profile: kept, or read from its file (a directory's).
  def data_of(entry) = entry[:data] || Rperf.load(entry[:path])

  # When a snapshot's commit was made (else when it was written).
  def snapshot_time(meta)
    text = meta && ((meta[:git].is_a?(Hash) && meta[:git][:committed_at]) || meta[:created_at])
    text && Time.iso8601(text.to_s)
  rescue ArgumentError
    nil
  end

  def with_meta(data)
    return data unless data.is_a?(Hash)

    data = data.dup
    data[:meta] ||= Rperf::Meta.build_meta(data)
    data[:summary] ||= Rperf::Meta.build_summary(data)
    data
  rescue ArgumentError, TypeError
    data # not a profile: its page says so
  end

  def summary(entry)
    data = entry[:data]
    return file_summary(entry) unless data

    {id: entry[:id], taken_at: entry[:taken_at].iso8601, mode: data[:mode],
     duration_ns: data[:duration_ns], sampling_count: data[:sampling_count], meta: data[:meta],
     summary: data[:summary]}
  end

  # A directory's snapshot, from its file's head.
  def file_summary(entry)
    meta = entry[:meta] || {}
    summary = entry[:summary] || {}
    {id: entry[:id], taken_at: entry[:taken_at].iso8601, file: File.basename(entry[:path]),
     mode: meta[:mode]&.to_sym, duration_ns: summary[:total_ms] && (summary[:total_ms] * 1_000_000).round,
     sampling_count: summary[:samples], meta: entry[:meta], summary: entry[:summary]}
  end

  def snapshot_list = @mutex.synchronize { @snapshots.map { |s| summary(s) } }

  def snapshot_detail(entry)
    data = data_of(entry)
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
