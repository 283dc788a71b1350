# frozen_string_literal: true

# rails_client.rb PORT LATENCIES [POSTS CPU SLOW] — tests/e2e/rails.sh's
# client: one GET of each of the POSTS posts (300: slugs, one route), CPU
# of /cpu and SLOW of /slow (40 each), shuffled, 4 in flight; prints each
# status and body, sorted (the order they come back in is the threads'),
# and writes "PATH MS" a request to LATENCIES, PATH with the slug as
# "/posts/:slug".
require "net/http"

port = Integer(ARGV[0])
posts, cpu, slow = (ARGV[2..] || []).map { |n| Integer(n) }
paths = Array.new(posts || 300) { |i| "/posts/post-number-#{i}-about-things" } + ["/cpu"] * (cpu || 40) +
        ["/slow"] * (slow || 40)
queue = Queue.new
paths.shuffle(random: Random.new(3)).each { |p| queue << p }
4.times { queue << nil }
answers = Queue.new
latencies = Queue.new
Array.new(4) do
  Thread.new do
    Net::HTTP.start("127.0.0.1", port) do |http|
      while (path = queue.pop)
        t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        response = http.get(path)
        ms = (Process.clock_gettime(Process::CLOCK_MONOTONIC) - t) * 1000
        latencies << format("%s %.3f", path.sub(%r{\A/posts/.*}, "/posts/:slug"), ms)
        answers << "#{response.code} #{response.body}"
      end
    end
  end
end.each(&:join)
puts Array.new(answers.size) { answers.pop }.sort
File.write(ARGV[1], Array.new(latencies.size) { latencies.pop }.join("\n") << "\n")
