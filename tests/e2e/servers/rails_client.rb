# frozen_string_literal: true

# rails_client.rb PORT LATENCIES — tests/e2e/rails.sh's client: one GET of
# each of the 300 posts (300 slugs, one route), 40 of /cpu and 40 of
# /slow, shuffled, 4 in flight; prints each status and body, sorted (the
# order they come back in is the threads'), and writes "PATH MS" a request
# to LATENCIES, PATH with the slug as "/posts/:slug".
require "net/http"

port = Integer(ARGV[0])
paths = Array.new(300) { |i| "/posts/post-number-#{i}-about-things" } + ["/cpu"] * 40 + ["/slow"] * 40
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
