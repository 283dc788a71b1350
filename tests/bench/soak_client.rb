# tests/bench/soak_client.rb — the load of `scripts/bench soak`: THREADS
# threads, each sending one request per connection every PERIOD_MS
# milliseconds (when the previous one is back in time) for SECONDS seconds
# to the loopback server on PORT; then prints one line:
#   requests errors p50_ms p90_ms p99_ms p999_ms max_ms
#   ruby soak_client.rb PORT SECONDS [THREADS PERIOD_MS]
require "socket"

port = Integer(ARGV.fetch(0))
seconds = Float(ARGV.fetch(1))
threads = Integer(ARGV.fetch(2, 3))
period = Float(ARGV.fetch(3, 5)) / 1000
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
        sock.write("#{id}\n")
        sock.gets or raise "no reply"
        sock.close
        mine << clock.() - t0
      rescue StandardError
        errors += 1
      end
    end
    mine
  end
end.flat_map(&:value).sort
at = ->(q) { latencies.empty? ? 0 : latencies[[(q * latencies.size).ceil - 1, 0].max] * 1000 }
printf("%d %d %.2f %.2f %.2f %.2f %.2f\n", latencies.size, errors, at.(0.5), at.(0.9), at.(0.99),
       at.(0.999), at.(1.0))
