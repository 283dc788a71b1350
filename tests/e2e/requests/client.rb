# A bounded client (tests/e2e/requests.sh): ARGV[0] the port file; sends
# 1,000 /fast, 800 /slow (every 20th as /slow?nap: the server then sleeps
# 50 ms) and 200 /cpu requests in a shuffled order, 4 in flight, then /stop; prints how many of each it sent and the p99 of /slow
# as it saw it (ms). Each request carries X-Request-Start, the time it was
# sent, as a proxy in front of the server would add it (nginx:
# proxy_set_header X-Request-Start "t=${msec}").
require "net/http"

sleep 0.05 until File.size?(ARGV[0])
port = Integer(File.read(ARGV[0]))
paths = (["/fast"] * 1000 + ["/slow"] * 800 + ["/cpu"] * 200).shuffle(random: Random.new(7))
slow = 0
paths.map! { |p| p == "/slow" && ((slow += 1) % 20).zero? ? "/slow?nap" : p }
queue = Queue.new
paths.each { |p| queue << p }
4.times { queue << nil }
latencies = Hash.new { |h, k| h[k] = [] }
lock = Mutex.new
Array.new(4) do
  Thread.new do
    Net::HTTP.start("127.0.0.1", port) do |http|
      while (path = queue.pop)
        t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        http.get(path, "X-Request-Start" => format("t=%.6f", Process.clock_gettime(Process::CLOCK_REALTIME)))
        ms = (Process.clock_gettime(Process::CLOCK_MONOTONIC) - t) * 1000
        lock.synchronize { latencies[path.sub("?nap", "")] << ms }
      end
    end
  end
end.each(&:join)
Net::HTTP.start("127.0.0.1", port) { |http| http.get("/stop") }
slow = latencies["/slow"].sort
latencies.each { |path, l| puts "sent #{path} #{l.size}" }
puts "client_p99 /slow #{slow[(slow.size * 0.99).ceil - 1]}"
