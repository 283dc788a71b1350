# tests/bench/soak_client.rb — the load of `scripts/bench soak`: THREADS
# threads, each sending one request per connection every PERIOD_MS
# milliseconds (when the previous one is back in time) for SECONDS seconds
# to the loopback server on PORT; then prints one line:
#   requests errors p50_ms p90_ms p99_ms p999_ms max_ms
#   ruby soak_client.rb PORT SECONDS [THREADS PERIOD_MS [PROTOCOL]]
# PROTOCOL "line" (soak_server.rb: a request id, a line back) or "rails"
# (HTTP/1.1 to tests/e2e/servers/rails_app.ru on Puma, the mix of a site:
# 60% a post by one of 300 slugs, 30% a search whose term was never sent
# before — an unbounded number of distinct URLs —, 5% a 50 ms sleep, 5% 20
# ms of CPU; an answer other than 200 is an error). Standard library only.
require "socket"

port = Integer(ARGV.fetch(0))
seconds = Float(ARGV.fetch(1))
threads = Integer(ARGV.fetch(2, 3))
period = Float(ARGV.fetch(3, 5)) / 1000
protocol = ARGV.fetch(4, "line")
abort "soak_client.rb: PROTOCOL must be line or rails, got #{protocol.inspect}" unless %w[line rails].include?(protocol)

# rails: the path of request ID
def rails_path(id)
  case id % 20
  when 0 then "/slow"
  when 1 then "/cpu"
  when 2..7 then "/search/#{(id * 7919).to_s(36).tr("0-9", "g-p")}" # letters only: not an ":id"
  else "/posts/post-number-#{id % 300}-about-things"
  end
end

# one request on a fresh connection; raises unless answered as expected
def exchange(protocol, sock, id)
  if protocol == "line"
    sock.write("#{id}\n")
    sock.gets or raise "no reply"
  else
    sock.write("GET #{rails_path(id)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    status = sock.gets or raise "no reply"
    raise "answered #{status}" unless status.start_with?("HTTP/1.1 200")
    sock.read
  end
end

clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
finish = clock.() + seconds
errors = 0
latencies = threads.times.map do |t|
  Thread.new do
    mine = []
    id = t
    next_at = clock.()
    while (now = clock.()) < finish
      sleep(next_at - now) if next_at > now
      next_at += period
      id += threads
      t0 = clock.()
      begin
        sock = TCPSocket.new("127.0.0.1", port)
        exchange(protocol, sock, id)
        mine << clock.() - t0
      rescue StandardError
        errors += 1
      ensure
        sock&.close
      end
    end
    mine
  end
end.flat_map(&:value).sort
at = ->(q) { latencies.empty? ? 0 : latencies[[(q * latencies.size).ceil - 1, 0].max] * 1000 }
printf("%d %d %.2f %.2f %.2f %.2f %.2f\n", latencies.size, errors, at.(0.5), at.(0.9), at.(0.99),
       at.(0.999), at.(1.0))
