# frozen_string_literal: true

# client.rb PORT ROUNDS [LATENCIES] — ROUNDS rounds of GET /cpu, /sleep and
# /nope, a connection per round (so that every worker of a cluster gets
# some); prints each status and body, and writes "PATH MS" a request to
# LATENCIES: the time from sending the request to reading its response.
require "net/http"

port, rounds = ARGV.take(2).map { |a| Integer(a) }
latencies = []
rounds.times do
  Net::HTTP.start("127.0.0.1", port) do |http|
    %w[/cpu /sleep /nope].each do |path|
      t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      response = http.get(path)
      latencies << format("%s %.3f", path, (Process.clock_gettime(Process::CLOCK_MONOTONIC) - t) * 1000)
      print "#{response.code} #{response.body}"
    end
  end
end
File.write(ARGV[2], latencies.join("\n") << "\n") if ARGV[2]
