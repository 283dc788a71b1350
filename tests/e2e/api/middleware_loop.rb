# tests/e2e/api/middleware_loop.rb — the Rack and Sidekiq middlewares
# around an app, request after request, until the file `stop` appears
# (or ARGV[0] requests): malformed envs among them (invalid UTF-8, NUL,
# binary bytes, a 100 KB path, no path, garbage X-Request-Start, a
# non-ASCII method), each compared with the app's own answer without the
# middleware. Prints "started" after the first, then the counts: every
# status must be the app's, and nothing of the profiler's may reach the
# app or the job system. api_middleware.sh drives recordings around it.
$stdout.sync = true
require "rperf"
require "rperf/rack"
require "rperf/sidekiq"
paths = ["/items/1", "/caf\xC3/42".dup.force_encoding(Encoding::UTF_8), "/a\0b", "/" + "x" * 100_000, nil, "",
         "/\xFF\xFE".b, "/users/123e4567-e89b-12d3-a456-426614174000/9", "//", "/%", "/ünï/3"]
starts = [nil, "t=", "t=abc", "t=1e400", "999999999999999999999999", "t=-5", "t=#{Time.now.to_f}", "garbage=1"]
methods = ["GET", nil, "", "\xC3".dup.force_encoding(Encoding::UTF_8)]
app = ->(env) { p = env["PATH_INFO"]; [p.is_a?(String) && !p.valid_encoding? ? 400 : 200, {}, ["ok"]] }
mw = Rperf::RackMiddleware.new(app)
sk = Rperf::SidekiqMiddleware.new
n = mismatches = errors = malformed = 0
limit = Integer(ARGV[0] || 1_000_000_000)
until File.exist?("stop") || n >= limit
  env = { "REQUEST_METHOD" => methods[n % methods.size], "PATH_INFO" => paths[n % paths.size],
          "HTTP_X_REQUEST_START" => starts[n % starts.size] }.compact
  begin
    want = app.call(env.dup)[0]
    got = mw.call(env.dup)[0]
    mismatches += 1 if got != want
    job = sk.call(nil, { "class" => paths[n % paths.size].to_s.scrub[0, 50], "enqueued_at" => [nil, "x", 1e20, -1][n % 4] }, "q") { :ran }
    mismatches += 1 unless job == :ran
  rescue Exception => e
    errors += 1
    warn "#{e.class}: #{e.message[0, 200]}" if errors < 5
  end
  malformed += 1 unless env["PATH_INFO"].is_a?(String) && env["PATH_INFO"].valid_encoding? && env["PATH_INFO"].size < 1000 && !env["PATH_INFO"].include?("\0")
  n += 1
  puts "started" if n == 1
end
puts "requests #{n} malformed #{malformed} mismatches #{mismatches} errors #{errors}"
