# tests/e2e/api/viewer.rb — Rperf::Viewer in a Rack stack on Debian's Rack
# (RACK_LIB), behind Rack::Lint, asked as a browser would ask it: the
# index, the JSON of the snapshots, the page of one, what passes through
# to the application; snapshots taken from the profile a process has
# (api_viewer.sh runs this dormant, with a session, and under the
# whole-process profile), kept up to max_snapshots, each with only what
# happened since the one before; names from the program escaped.
$LOAD_PATH.unshift(ENV.fetch("RACK_LIB"))
require "rack"
require "rack/lint"
require "rack/mock"
require "rack/auth/basic"
require "rperf/viewer"
require "cpu_burn"
require "json"
require_relative "check"

def first_work = burn_cpu(0.15)
def second_work = burn_cpu(0.15)

app = Rack::Builder.new do
  use Rack::Lint
  use Rperf::Viewer, path: "/profiler", max_snapshots: 2
  use Rack::Lint
  run ->(_env) { [200, {"content-type" => "text/plain"}, ["the application"]] }
end.to_app
browser = Rack::MockRequest.new(app)
viewer = Rperf::Viewer.instance

check("the application still answers", browser.get("/users").body, "the application")
check("the viewer's path without its slash", [browser.get("/profiler").status, browser.get("/profiler")["location"]],
      [301, "/profiler/"])
index = browser.get("/profiler/")
check("an empty index", [index.status, index.body.include?("No snapshot yet")], [200, true])
check("an unknown path under the viewer", browser.get("/profiler/secrets").status, 404)
check("a snapshot that is not there", browser.get("/profiler/snapshots/7").status, 404)
check("a list of nothing", JSON.parse(browser.get("/profiler/snapshots").body), [])

Rperf.start(mode: :cpu, frequency: 500) if ENV["RPERF_ENABLED"] == "0"
first_work
first = viewer.take_snapshot!
second_work
second = viewer.take_snapshot!
check("a snapshot is taken", [first && first[:id], second && second[:id]], [1, 2])

methods = ->(id) { JSON.parse(browser.get("/profiler/snapshots/#{id}").body)["samples"].flat_map { |s| s["stack"] }.uniq }
check("the first snapshot has the first work", methods.(1).include?("Object#first_work"), true)
check("the second has only what came after the first", [methods.(2).include?("Object#second_work"),
                                                         methods.(2).include?("Object#first_work")], [true, false])
detail = JSON.parse(browser.get("/profiler/snapshots/1").body)
stack = detail["samples"].find { |s| s["stack"].include?("Object#first_work") }["stack"]
check("a snapshot's stacks run from the root", stack.index("Object#first_work") > stack.index("<main>"), true)
check("a snapshot says its mode and rate", [detail["mode"], detail["frequency"]], ["cpu", ENV["RPERF_ENABLED"] == "0" ? 500 : 1000])

list = JSON.parse(browser.get("/profiler/snapshots").body)
check("the list", list.map { |s| [s["id"], s["mode"], s["sampling_count"] > 0] }, [[1, "cpu", true], [2, "cpu", true]])
check("the index links each, newest first",
      browser.get("/profiler/").body.scan(%r{href="/profiler/snapshots/(\d+)/"}).flatten, %w[2 1])

page = browser.get("/profiler/snapshots/1/")
check("the page of a snapshot", [page.status, page.content_type, page.body.start_with?("<!DOCTYPE html>")],
      [200, "text/html; charset=utf-8", true])
check("the page draws its data", page.body.include?("Object#first_work"), true)
check("no frame may hold the page", [page["x-frame-options"], page["content-security-policy"].include?("frame-ancestors 'none'")],
      ["DENY", true])
check("the page loads nothing from elsewhere", page.body.scan(/(?:src|href)="(?:https?:)?\/\//), [])

# A third snapshot pushes the first out.
viewer.add_snapshot(Rperf.snapshot)
check("max_snapshots: 2 keeps the newest two", JSON.parse(browser.get("/profiler/snapshots").body).map { |s| s["id"] }, [2, 3])
check("the first one is gone", browser.get("/profiler/snapshots/1/").status, 404)

# What a program names is escaped wherever the viewer writes it.
hostile = {mode: :cpu, frequency: 100, duration_ns: 1_000_000, sampling_count: 1,
           aggregated_samples: [[[["</script>.rb", "</script><script>alert(1)</script>"]], 1_000_000, 0, 1]],
           label_sets: [{}, {user: "<img src=x onerror=alert(2)>"}]}
id = viewer.add_snapshot(hostile)[:id]
hostile_page = browser.get("/profiler/snapshots/#{id}/").body
check("the page escapes a method", hostile_page.include?("</script><script>alert(1)"), false)
check("the page escapes a label", hostile_page.include?("<img src=x"), false)
check("the page still has both", [hostile_page.include?("alert(1)"), hostile_page.include?("alert(2)")], [true, true])
id = viewer.add_snapshot(hostile.merge(mode: "<img src=x onerror=alert(3)>"))[:id]
check("the index escapes a mode", browser.get("/profiler/").body.include?("<img src=x"), false)
broken = browser.get("/profiler/snapshots/#{id}/")
check("a snapshot that is no profile is said", [broken.status, broken.body],
      [500, "snapshot #{id} cannot be drawn: rperf: :mode must be :cpu or :wall, got <img src=x onerror=alert(3)>"])

# Mounted as docs/api.md shows, behind Basic authentication in a `map`:
# refused without the password, and the links carry the mount point.
ENV["RPERF_VIEWER_PASSWORD"] = "s3cret"
guarded = Rack::Builder.new do
  map "/rperf" do
    use Rack::Auth::Basic, "rperf" do |_user, password|
      Rack::Utils.secure_compare(password, ENV.fetch("RPERF_VIEWER_PASSWORD"))
    end
    run Rperf::Viewer.new(nil, path: "")
  end
  run ->(_env) { [200, {"content-type" => "text/plain"}, ["the application"]] }
end.to_app
mounted = Rperf::Viewer.instance
mounted.add_snapshot(Rperf.snapshot)
outsider = Rack::MockRequest.new(guarded)
check("the mounted viewer without the password", outsider.get("/rperf/").status, 401)
check("nor its snapshots", outsider.get("/rperf/snapshots/1").status, 401)
check("the application beside it", outsider.get("/users").body, "the application")
auth = {"HTTP_AUTHORIZATION" => "Basic #{["ops:s3cret"].pack("m0")}"}
check("with the password, links under the mount point",
      outsider.get("/rperf/", auth).body.scan(%r{href="([^"]+)"}).flatten, ["/rperf/snapshots/1/"])
check("and the way there without its slash", outsider.get("/rperf", auth)["location"], "/rperf/")
check("the page, mounted", outsider.get("/rperf/snapshots/1/", auth).status, 200)

# A directory of snapshots (rperf record --snapshot-dir's), listed by their
# heads and read when asked for; max_snapshots does not count them.
snaps = File.join(Dir.pwd, "viewer-snaps-#{ENV["RPERF_ENABLED"]}")
Dir.mkdir(snaps)
first = Rperf.snapshot
Rperf.save(File.join(snaps, "rperf-aaaaaaa-20260101T000000Z.json.gz"), first)
Rperf.save(File.join(snaps, "rperf-bbbbbbb-20260102T000000Z.json.gz"), first)
File.write(File.join(snaps, "broken.json"), "{")
history = Rperf::Viewer.new(nil, path: "", max_snapshots: 1)
history.add_snapshot(first)
check("add_snapshot_dir counts the files", history.add_snapshot_dir(snaps), 3)
history_browser = Rack::MockRequest.new(history)
listed = JSON.parse(history_browser.get("/snapshots").body)
check("the directory's snapshots are listed beside the one in memory", listed.size, 4)
from_files = listed.select { |s| s["file"] }
check("each with its file", from_files.map { |s| s["file"] }.sort,
      %w[broken.json rperf-aaaaaaa-20260101T000000Z.json.gz rperf-bbbbbbb-20260102T000000Z.json.gz])
saved = from_files.find { |s| s["file"].start_with?("rperf-aaaaaaa") }
check("and its meta and summary, read from its head", [saved["meta"]["rperf_version"], saved["summary"]["samples"]],
      [Rperf::VERSION, first[:sampling_count]])
detail = JSON.parse(history_browser.get("/snapshots/#{saved["id"]}").body)
check("a file's body, read when asked for", detail["samples"].sum { |x| x["weight"] }, first[:aggregated_samples].sum { |x| x[1] })
check("its page", history_browser.get("/snapshots/#{saved["id"]}/").status, 200)
broken = from_files.find { |s| s["file"] == "broken.json" }
check("a file that cannot be read is said", history_browser.get("/snapshots/#{broken["id"]}").status, 500)
history.add_snapshot(first)
check("max_snapshots counts only the snapshots in memory", JSON.parse(history_browser.get("/snapshots").body).size, 4)
page = Rperf::Viewer.render_static_html(first)
check("render_static_html: one page", [page.start_with?("<!DOCTYPE html>"), page.include?("rperf")], [true, true])

begin
  Rperf::Viewer.new(nil, max_snapshots: 0)
  raise "max_snapshots: 0 was taken"
rescue ArgumentError => e
  check("a bad max_snapshots is named", e.message, "max_snapshots must be a positive integer, got 0")
end
Rperf.stop if ENV["RPERF_ENABLED"] == "0"
check("no snapshot without a profile", Rperf::Viewer.new(nil).take_snapshot!, nil) if ENV["RPERF_ENABLED"] == "0"
puts "viewer.rb ok"
